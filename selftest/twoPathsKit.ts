/**
 * Running one submission through both paths for the self-tests that hold them to one verdict:
 * `npm test` (a real `vitest run` of the graded suite, its report) and the grader.
 */
import { expect } from 'vitest';
import type { CaseResult } from '../lib/model/result';
import { tempDir } from './grader/materialize';
import { runSuiteOn, type SuiteReport } from './suiteRuns';

const work = tempDir('two-paths-runs');

/** A test as `vitest run` of the graded suite ended it: passed, its failure message, the notes it left. */
export interface Tested {
  passed: boolean;
  message: string;
  notes: string[];
}

/**
 * Each visible test's ending in a real `vitest run` of the graded suite (npm test) on each of
 * `folders` (name to folder): one run over them all, a test file each (suiteRuns.ts), started by
 * the first test to ask and shared by the rest.
 */
export function sharedVitestRun(folders: Record<string, string>, label: string): (name: string) => Promise<Record<string, Tested>> {
  let reports: Promise<Record<string, SuiteReport>> | undefined;
  return async (name) => {
    const report = (await (reports ??= runSuiteOn(folders, work, label)))[name];
    const tests = report.testResults.flatMap((f) => f.assertionResults).filter((a) => a.status !== 'skipped');
    return Object.fromEntries(tests.map((a) => [a.title, { passed: a.status === 'passed', message: a.failureMessages.join('\n'), notes: a.meta?.notes ?? [] }]));
  };
}

/** A test that waits for a shared run of every folder (and its own grading) on a loaded machine. */
export const SHARED_RUN_LIMIT_MS = 600_000;

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

