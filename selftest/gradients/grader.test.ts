/**
 * The gradients part through its two paths with the part switched on (ATTENTION_PARTS=core,gradients):
 * the real grader (a contained child runs the code, the diagnosis probes a fresh one) and a real
 * `vitest run` of the graded suite (npm test). The reference gets full marks, visible and hidden;
 * the stubs none, each stub's test saying which function to write; every backward mistake of the
 * catalogue fails the same tests with the same words in both, diagnosis included, and those of the
 * in-process grading the other gradient self-tests use (kit.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCaseFixtures } from '../../lib/grading/grade';
import type { SubmissionResult } from '../../lib/model/result';
import { OVERRIDE } from '../../tests/parts';
import { GRADIENT_BUGS, GRADIENT_CORRECT } from '../catalogue/gradients';
import { grade } from '../grader/harness';
import { materialize, tempDir } from '../grader/materialize';
import { expectSameEndings, SHARED_RUN_LIMIT_MS, sharedVitestRun } from '../twoPathsKit';
import { GRADIENT_CASES, gradeGradients, WITH_GRADIENTS } from './kit';

const work = tempDir('gradients');
/** The backward catalogue's shared files, copied beside each materialized submission as the forward's are. */
const BACKWARD_HELPERS = ['backward_base.ts', 'backward_loops.ts'].map((file) => path.join(__dirname, '..', 'catalogue', 'bugs', file));

function folder(file: string, name: string): string {
  const dir = materialize(file, work, name);
  for (const helper of BACKWARD_HELPERS) fs.copyFileSync(helper, path.join(dir, path.basename(helper)));
  return dir;
}

/** Every visible case of the core and the gradients part, as npm test runs them with the part on. */
const VISIBLE = WITH_GRADIENTS.cases.filter((c) => !c.hidden);

const gradeWith = (dir: string, name: string, cases = VISIBLE): Promise<SubmissionResult> =>
  grade(dir, name, { assignment: WITH_GRADIENTS, cases, fixtures: loadCaseFixtures(WITH_GRADIENTS, cases) });

const folders = Object.fromEntries(GRADIENT_BUGS.map((e) => [e.name, folder(e.file, e.name)]));
const vitestRun = sharedVitestRun(folders, 'gradients');
/** npm test's endings on a bug's folder, from one vitest run over them all started with the part switched on. */
function tested(name: string): ReturnType<typeof vitestRun> {
  const before = process.env[OVERRIDE];
  process.env[OVERRIDE] = WITH_GRADIENTS.parts!.on.join(',');
  try {
    // The run's process starts here, with this environment, on the first call.
    return vitestRun(name);
  } finally {
    if (before === undefined) delete process.env[OVERRIDE];
    else process.env[OVERRIDE] = before;
  }
}

describe('the grader, with the gradients part on', () => {
  it('gives the reference full marks, hidden cases included', async () => {
    const result = await gradeWith(folder(GRADIENT_CORRECT[0].file, 'reference'), 'reference', GRADIENT_CASES);
    expect(result.cases.filter((c) => c.status !== 'passed').map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
    expect(result.score).toBe(GRADIENT_CASES.reduce((sum, c) => sum + c.points, 0));
  });

  it('gives the stubs nothing, and says which function to write', async () => {
    const result = await gradeWith(path.join(__dirname, '..', '..', 'student'), 'stubs', GRADIENT_CASES.filter((c) => !c.hidden));
    expect(result.score).toBe(0);
    expect(result.cases.filter((c) => c.status !== 'not_implemented').map((c) => c.name)).toEqual([]);
    expect(new Set(result.cases.map((c) => c.reason.match(/(softmaxBackward|scaledDotProductAttentionBackward)/)?.[1]))).toEqual(new Set(['softmaxBackward', 'scaledDotProductAttentionBackward']));
  });

  it.each(GRADIENT_BUGS.map((e) => [e.name, e] as const))('%s: the same failed tests and the same words in both paths, and in process', async (name, entry) => {
    const npmTest = tested(name);
    const result = await gradeWith(folders[name], name);
    expectSameEndings(result.cases, await npmTest);
    const failed = result.cases.filter((c) => c.status !== 'passed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.filter((c) => !GRADIENT_CASES.some((g) => g.name === c.name && g.fn === entry.breaks)).map((c) => c.name)).toEqual([]);
    expect(failed.filter((c) => c.diagnosis?.mistake === entry.mistake).length).toBeGreaterThan(0);
    expect(failed.filter((c) => c.diagnosis && c.diagnosis.mistake !== entry.mistake && !entry.mayAlsoSay?.includes(c.diagnosis.mistake)).map((c) => c.name)).toEqual([]);
    const inProcess = await gradeGradients(await import(entry.file), name, GRADIENT_CASES.filter((c) => !c.hidden), undefined, await import(`${entry.file}?probe`));
    expect(Object.fromEntries(inProcess.filter((r) => !r.passed).map((r) => [r.graded.name, r.diagnosis?.message ?? ''])))
      .toEqual(Object.fromEntries(failed.map((c) => [c.name, c.diagnosis?.message ?? ''])));
  }, SHARED_RUN_LIMIT_MS);
});
