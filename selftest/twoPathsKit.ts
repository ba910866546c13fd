/**
 * Running one submission through both paths for the self-tests that hold them to one verdict:
 * `npm test` (a real `vitest run` of the graded suite, its JSON report) and the grader.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { PROJECT_ROOT } from '../lib/paths';
import type { CaseResult } from '../lib/model/result';
import { tempDir } from './grader/materialize';

const work = tempDir('two-paths-runs');

/** A test as `vitest run` of the graded suite ended it: passed, its failure message, the notes it left. */
export interface Tested {
  passed: boolean;
  message: string;
  notes: string[];
}

/** Each visible test's ending from a real `vitest run` (npm test) on `dir`. */
export function vitestRun(dir: string, name: string, extra: string[] = []): Promise<Record<string, Tested>> {
  const report = path.join(work, `${name}.vitest.json`);
  const vitest = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const child = spawn(process.execPath, [vitest, 'run', '--reporter=json', `--outputFile=${report}`, ...extra], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ATTENTION_SUBMISSION: dir },
    stdio: 'ignore',
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => {
      const json = JSON.parse(fs.readFileSync(report, 'utf8')) as {
        testResults: { assertionResults: { title: string; status: string; failureMessages: string[]; meta?: { notes?: string[] } }[] }[];
      };
      const tests = json.testResults.flatMap((f) => f.assertionResults).filter((a) => a.status !== 'skipped');
      resolve(Object.fromEntries(tests.map((a) => [a.title, { passed: a.status === 'passed', message: a.failureMessages.join('\n'), notes: a.meta?.notes ?? [] }])));
    });
  });
}

/** The grader's reason without the diagnosis it leads with: npm test gives the diagnosis on a line of its own. */
export function ownReason(c: CaseResult): string {
  return c.diagnosis && c.reason.startsWith(`${c.diagnosis.message} — `) ? c.reason.slice(c.diagnosis.message.length + 3) : c.reason;
}

/** Both paths' endings agree, test by test, in words too. */
export function expectSameEndings(graded: CaseResult[], tested: Record<string, Tested>): void {
  const visible = graded.filter((c) => !c.hidden);
  expect(Object.keys(tested).sort()).toEqual(visible.map((c) => c.name).sort());
  for (const c of visible) {
    const t = tested[c.name];
    expect(t.passed, `${c.name}: grader ${c.status} (${c.reason}); npm test ${t.message}`).toBe(c.status === 'passed');
    if (t.passed) continue;
    expect(t.message, c.name).toContain(ownReason(c));
    if (c.diagnosis) expect(t.message, c.name).toContain(`Diagnosis: ${c.diagnosis.message}`);
    else expect(t.message, c.name).not.toMatch(/^Diagnosis: /m);
  }
}

