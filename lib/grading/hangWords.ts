/**
 * The words for a graded function that does not return, shared by the grader (verdict.ts) and the
 * students' `npm test` (tests/graded.test.ts): the same hang reads the same on both paths.
 */
import { EXPORT_NAMES } from '../../adapters/normalise';
import type { GradedFunction } from '../../tests/cases';

/** Each test's limit, the grader's default `--timeout` and `npm test`'s. */
export const PER_TEST_LIMIT_MS = 10_000;

const seconds = (ms: number) => `${ms / 1000} s`;

/** A call that did not return within the per-test limit. */
export function didNotReturn(fn: GradedFunction, timeoutMs: number): string {
  return `\`${EXPORT_NAMES[fn]}\` did not return within ${seconds(timeoutMs)}, the time limit per test: an endless loop, or far too slow?`;
}

/** A test of a function that already hung: not run, so that one hang costs that function only. */
export function notRunAfterHang(fn: GradedFunction, timeoutMs: number, hungIn: string): string {
  return `not run: \`${EXPORT_NAMES[fn]}\` did not return within ${seconds(timeoutMs)} in ${hungIn}, so its other tests fail at once (one hang costs that function only)`;
}
