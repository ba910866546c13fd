/**
 * The real student command, `vitest run` on tests/, against the reference (everything passes) and
 * against the stubs (everything fails, as not implemented), plus the `-t scaled_dot_product`
 * filter students use.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../lib/paths';
import { didNotReturn, notRunAfterHang, PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import { visibleCases } from '../tests/cases';
import { materialize } from './grader/materialize';

interface JsonReport {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
}

function runSuite(submission: string, extra: string[] = []): JsonReport {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'suite-')), 'report.json');
  const vitest = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  spawnSync(process.execPath, [vitest, 'run', '--reporter=json', `--outputFile=${out}`, ...extra], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ATTENTION_SUBMISSION: submission },
    encoding: 'utf8',
  });
  return JSON.parse(fs.readFileSync(out, 'utf8')) as JsonReport;
}

const assertions = (report: JsonReport) => report.testResults.flatMap((f) => f.assertionResults);

describe('the graded suite (npm test)', () => {
  it('passes every visible case on the reference', () => {
    const report = runSuite('reference');
    expect(report.numTotalTests).toBe(visibleCases().length);
    expect(assertions(report).filter((a) => a.status !== 'passed').map((a) => a.title)).toEqual([]);
  });

  it('fails every case on the stubs, each as not implemented', () => {
    const report = runSuite('student');
    expect(report.numFailedTests).toBe(visibleCases().length);
    for (const a of assertions(report)) expect(a.failureMessages.join('\n')).toMatch(/is not implemented yet: edit student\/index\.ts/);
  });

  it('a causalMask that never returns: its tests fail in the grader\'s words, the others pass, and the run ends', () => {
    const dir = materialize(path.join(__dirname, 'grader', 'misbehaving', 'loop_in_causal_mask.ts'), fs.mkdtempSync(path.join(os.tmpdir(), 'suite-')));
    const report = runSuite(dir);
    const failed = assertions(report).filter((a) => a.status !== 'passed');
    expect(failed.map((a) => a.title)).toEqual(visibleCases('causal_mask').map((c) => c.name));
    const [first, ...rest] = failed;
    expect(first.failureMessages.join('\n')).toContain(didNotReturn('causal_mask', PER_TEST_LIMIT_MS));
    for (const a of rest) expect(a.failureMessages.join('\n')).toContain(notRunAfterHang('causal_mask', PER_TEST_LIMIT_MS, first.title));
  });

  it('-t scaled_dot_product runs exactly the attention cases', () => {
    const report = runSuite('reference', ['-t', 'scaled_dot_product']);
    const ran = assertions(report).filter((a) => a.status === 'passed').map((a) => a.title);
    expect(ran.sort()).toEqual(visibleCases('scaled_dot_product_attention').map((c) => c.name).sort());
    expect(ran.length).toBeGreaterThanOrEqual(6);
  });
});
