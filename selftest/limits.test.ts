/**
 * The limits a submission runs under, held alike by `npm test` (a real `vitest run` of the graded
 * suite) and the grader, with their defaults: a correct solution that is slow (1–2 s of CPU a call)
 * passes every visible test in both, and gets full marks.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BUDGET_MS } from '../lib/grading/faults';
import { PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import { grade } from './grader/harness';
import { materialize, tempDir } from './grader/materialize';
import { expectSameEndings, SHARED_RUN_LIMIT_MS, sharedVitestRun } from './twoPathsKit';

const work = tempDir('limits');
const misbehaving = (name: string) => materialize(path.join(__dirname, 'grader', 'misbehaving', `${name}.ts`), work, name);
const folders = { slow_correct_softmax: misbehaving('slow_correct_softmax') };
const vitestRun = sharedVitestRun(folders, 'limits');
/** The grader as `npm run grade` runs it: its own per-test limit and budget, not the self-tests' shorter ones. */
const DEFAULTS = { timeoutMs: PER_TEST_LIMIT_MS, budgetMs: DEFAULT_BUDGET_MS };

describe('limits, alike in npm test and the grader', () => {
  it('a correct softmax at 1.1 s of CPU a call: every visible test passes in both, full marks', async () => {
    const [graded, tested] = await Promise.all([grade(folders.slow_correct_softmax, 'slow_correct_softmax', DEFAULTS), vitestRun('slow_correct_softmax')]);
    expectSameEndings(graded.cases, tested);
    expect(Object.entries(tested).filter(([, t]) => !t.passed).map(([name, t]) => `${name}: ${t.message}`)).toEqual([]);
    expect(graded.score).toBe(graded.maxScore);
  }, SHARED_RUN_LIMIT_MS);
});
