/**
 * The limits a submission runs under, held alike by `npm test` (a real `vitest run` of the graded
 * suite) and the grader, with their defaults: a correct solution that is slow (1–2 s of CPU a call)
 * passes every visible test in both, and gets full marks; code past the memory cap fails in both,
 * with the same status and words for every test the fault cost, the cap named and, for the first,
 * the student's line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BUDGET_MS } from '../lib/grading/faults';
import { memoryWords, notRunAfterFault, PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import { DEFAULT_MEMORY_BYTES } from '../lib/sandbox/outOfMemory';
import { EXPORT_NAMES } from '../adapters';
import { visibleCases, type GradedFunction } from '../tests/cases';
import { grade } from './grader/harness';
import { materialize, tempDir } from './grader/materialize';
import { expectSameEndings, SHARED_RUN_LIMIT_MS, sharedVitestRun } from './twoPathsKit';

const work = tempDir('limits');
const misbehaving = (name: string) => materialize(path.join(__dirname, 'grader', 'misbehaving', `${name}.ts`), work, name);
const folders = { slow_correct_softmax: misbehaving('slow_correct_softmax'), memory_hogs: misbehaving('memory_hogs') };
const vitestRun = sharedVitestRun(folders, 'limits');
/** The grader as `npm run grade` runs it: its own per-test limit and budget, not the self-tests' shorter ones. */
const DEFAULTS = { timeoutMs: PER_TEST_LIMIT_MS, budgetMs: DEFAULT_BUDGET_MS };

describe('limits, alike in npm test and the grader', () => {
  it('a correct softmax at 1 s of CPU a call: every visible test passes in both, full marks', async () => {
    // One path after the other: side by side, each would be the other's load.
    const tested = await vitestRun('slow_correct_softmax');
    const graded = await grade(folders.slow_correct_softmax, 'slow_correct_softmax', DEFAULTS);
    expectSameEndings(graded.cases, tested);
    expect(Object.entries(tested).filter(([, t]) => !t.passed).map(([name, t]) => `${name}: ${t.message}`)).toEqual([]);
    expect(graded.score).toBe(graded.maxScore);
  }, SHARED_RUN_LIMIT_MS);

  it('a 3.2 GB array at once, and 64 MiB arrays kept without end: the same words in both, the cap and the line named, one status', async () => {
    const [graded, tested] = await Promise.all([grade(folders.memory_hogs, 'memory_hogs', DEFAULTS), vitestRun('memory_hogs')]);
    expectSameEndings(graded.cases, tested);
    const source = fs.readFileSync(path.join(folders.memory_hogs, 'index.ts'), 'utf8').split('\n');
    const lineOf = (text: string) => source.findIndex((line) => line.includes(text)) + 1;
    const hogs: [GradedFunction, number][] = [['scaled_dot_product_attention', lineOf('new Float64Array(400_000_000)')], ['causal_mask', lineOf('new Float64Array(8 * 1024 * 1024)')]];
    for (const [fn, line] of hogs) {
      const [first, ...rest] = graded.cases.filter((c) => c.fn === fn);
      const words = memoryWords(EXPORT_NAMES[fn], DEFAULT_MEMORY_BYTES, `memory_hogs/index.ts:${line}:COLUMN`);
      expect(first.reason).toMatch(new RegExp(`^${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('COLUMN', '\\d+')}$`));
      // npm test names the same place, column and all.
      expect(tested[first.name].message).toContain(first.reason);
      for (const c of rest) expect(c.reason).toBe(notRunAfterFault(EXPORT_NAMES[fn], { kind: 'memory', capBytes: DEFAULT_MEMORY_BYTES }, first.name));
      expect(new Set([first, ...rest].map((c) => c.status))).toEqual(new Set(['crashed']));
    }
    expect(graded.cases.filter((c) => c.status !== 'passed').map((c) => c.name).sort()).toEqual(
      [...visibleCases('scaled_dot_product_attention'), ...visibleCases('causal_mask')].map((c) => c.name).sort(),
    );
  }, SHARED_RUN_LIMIT_MS);
});
