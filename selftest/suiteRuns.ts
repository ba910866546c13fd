/**
 * `npm test` on many submissions in one vitest start: each submission is a test file of its own,
 * which sets ATTENTION_SUBMISSION as `ATTENTION_SUBMISSION=dir npm test` sets it and imports the
 * graded suite (selftest/suiteRuns.config.mts). Each submission's report has the shape of the JSON
 * reporter's for a run of its own, so a test reads it as it read that run's. A vitest per
 * submission cost a start each (selftest/grader/verdicts.test.ts ran ~100).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/paths';

/** The graded suite's files, as vitest.config.mts includes them: every .test.ts under tests/. */
function gradedSuiteFiles(): string[] {
  const tests = path.join(PROJECT_ROOT, 'tests');
  return fs.readdirSync(tests, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts')).sort().map((f) => path.join(tests, f));
}

/** A submission's run as vitest's JSON reporter reports a whole run. */
export interface SuiteReport {
  success: boolean;
  numFailedTestSuites: number;
  testResults: {
    name: string;
    status: string;
    message: string;
    assertionResults: { title: string; status: string; failureMessages: string[]; meta?: { notes?: string[] } }[];
  }[];
}

/** One `vitest run` of the graded suite over `submissions` (name to folder), with vitest's `args` (a `-t` filter); each name's report. */
export function runSuiteOn(submissions: Record<string, string>, work: string, label: string, args: string[] = []): Promise<Record<string, SuiteReport>> {
  const report = path.join(work, `${label}.runs.json`);
  const spec = path.join(work, `${label}.runs-spec.json`);
  const dir = path.join(work, `${label}.runs`);
  fs.mkdirSync(dir, { recursive: true });
  const suite = gradedSuiteFiles();
  // Numbered, not named: a submission's name need not make a file name.
  const files = Object.fromEntries(Object.entries(submissions).map(([name, folder], i) => {
    const file = path.join(dir, `s${i}.test.ts`);
    fs.writeFileSync(file, [
      "import { vi } from 'vitest';",
      // The graded suite, the adapters, the submission and the harness's modules evaluated afresh
      // for this submission: no module state of the one before it.
      'vi.resetModules();',
      `process.env.ATTENTION_SUBMISSION = ${JSON.stringify(folder)};`,
      ...suite.map((f) => `await import(${JSON.stringify(f)});`),
      '',
    ].join('\n'));
    return [file, name];
  }));
  fs.writeFileSync(spec, JSON.stringify({ files, dir, report }));
  const vitest = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const { ATTENTION_SUBMISSION: _, ...env } = process.env;
  const child = spawn(process.execPath, [vitest, 'run', '--config', path.join(PROJECT_ROOT, 'selftest', 'suiteRuns.config.mts'), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...env, ATTENTION_SELFTEST_RUNS: spec },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()).length > 20_000 && (stderr = stderr.slice(-10_000)));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!fs.existsSync(report)) return reject(new Error(`vitest over ${label} wrote no report (exit ${code}): ${stderr.slice(-2000)}`));
      resolve(JSON.parse(fs.readFileSync(report, 'utf8')) as Record<string, SuiteReport>);
    });
  });
}
