/**
 * What `npm run merge` checks in a shard's files before it believes them. A shard output is files
 * on disk that anyone with write access could have edited (or a bug could have written): a result
 * whose total is 12 while every test failed, a max_score of 1e12, a submission name holding `/`.
 * Each is checked against this checkout's own case table, never against what the shard says it is.
 */
import type { GradescopeResults } from '../report/gradescope';
import type { GradedCase } from '../assignment/cases';
import { nameBytes } from '../intake/names';
import { showName, truncate } from '../text/sanitise';
import { applyLatePolicy, parseLatePolicy, parseTime } from '../late/policy';

/** A results file larger than this is refused unread: an honest one is tens of KiB. */
export const RESULT_BYTES = 4 * 1024 ** 2;

/** Why `name` cannot be a submission's name (a folder of the submissions folder), or undefined. */
export function badName(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return 'a submission name that is not text';
  if (nameBytes(name).length > 255) return `a submission name of ${nameBytes(name).length} bytes (a folder's name has at most 255)`;
  // A backslash is a name's own character on Linux, and no stem (layout.ts) holds it.
  if (/[/\0]/.test(name) || name === '.' || name === '..') return `a submission name no folder can have (${showName(truncate(name, 80))})`;
  return undefined;
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/**
 * Why `results` is not a result this grader could have written for `table`, or undefined: every
 * test of the table in order, each worth its points when it passed and 0 otherwise, the score their
 * sum and max_score the table's.
 */
export function resultProblem(results: GradescopeResults, table: readonly GradedCase[], latePolicy?: unknown): string | undefined {
  if (!Array.isArray(results.tests) || results.tests.length !== table.length) {
    return `it has ${Array.isArray(results.tests) ? results.tests.length : 'no'} tests where the case table has ${table.length}`;
  }
  let sum = 0;
  for (const [i, c] of table.entries()) {
    const test = results.tests[i];
    if (test?.name !== c.name) return `its test ${i + 1} is ${showName(truncate(String(test?.name), 60))}, not ${c.name}`;
    if (test.max_score !== c.points) return `${c.name} is worth ${test.max_score}, not ${c.points}`;
    const earned = test.status === 'passed' ? c.points : 0;
    if (test.score !== earned) return `${c.name} has ${test.score} points for status ${String(test.status).slice(0, 20)}`;
    sum += earned;
  }
  const max = table.reduce((total, c) => total + c.points, 0);
  if (typeof results.max_score !== 'number' || !close(results.max_score, max)) return `its max_score is ${results.max_score}, not ${max}`;
  if (latePolicy === undefined) {
    if (results.extra_data.late !== undefined) return 'it has a late penalty, but its shard was graded without a late policy';
    if (typeof results.score !== 'number' || !close(results.score, sum)) return `its score is ${results.score}, but its tests add up to ${sum}`;
    return undefined;
  }
  return lateProblem(results, sum, max, latePolicy);
}

/** Why a result's late penalty is not what the recorded policy takes at its recorded time, or undefined. */
function lateProblem(results: GradescopeResults, sum: number, max: number, recordedPolicy: unknown): string | undefined {
  const policy = typeof recordedPolicy === 'string' ? parseLatePolicy(recordedPolicy, false) : 'not text';
  if (typeof policy === 'string') return `its shard records a late policy this grader cannot read (${policy})`;
  const late = results.extra_data.late;
  if (typeof late !== 'object' || late === null) return 'it has no late penalty, but its shard was graded with a late policy';
  const time = (value: unknown) => (typeof value === 'string' ? parseTime(value) : undefined);
  if (late.submitted_at !== (results.extra_data.graded_with?.submitted_at ?? null)) return 'its late penalty is for another submission time than it records';
  // A due time of its own (--extensions) is recorded with what it was graded with, and the penalty must be the one it gives.
  const extended = results.extra_data.graded_with?.due;
  if ((late.extended ? late.due : undefined) !== extended) return 'its late penalty is for another due time than it records';
  const expected = applyLatePolicy(policy, { submittedMs: time(late.submitted_at), dueMs: time(late.due), extendedMs: time(extended), source: late.source }, sum, max);
  if (!close(late.before, sum) || !close(late.penalty, expected.penalty)) return `its late penalty is ${late.penalty} where the policy takes ${expected.penalty} of ${sum}`;
  if (typeof results.score !== 'number' || !close(results.score, sum - expected.penalty)) return `its score is ${results.score}, but ${sum} less its late penalty is ${sum - expected.penalty}`;
  return undefined;
}
