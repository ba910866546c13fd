/**
 * The gradients part through the real grader (a contained child runs the code, the diagnosis probes
 * a fresh one): the reference gets full marks, visible and hidden; the stubs none, each stub's
 * test saying which function to write; and every backward mistake of the catalogue fails the same
 * tests with the same words, diagnosis included, as npm test's path gives them (kit.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCaseFixtures } from '../../lib/grading/grade';
import type { SubmissionResult } from '../../lib/model/result';
import { GRADIENT_BUGS, GRADIENT_CORRECT } from '../catalogue/gradients';
import { grade } from '../grader/harness';
import { materialize, tempDir } from '../grader/materialize';
import { GRADIENT_CASES, gradeGradients, WITH_GRADIENTS } from './kit';

const work = tempDir('gradients');
/** The backward catalogue's shared files, copied beside each materialized submission as the forward's are. */
const BACKWARD_HELPERS = ['backward_base.ts', 'backward_loops.ts'].map((file) => path.join(__dirname, '..', 'catalogue', 'bugs', file));

function folder(file: string, name: string): string {
  const dir = materialize(file, work, name);
  for (const helper of BACKWARD_HELPERS) fs.copyFileSync(helper, path.join(dir, path.basename(helper)));
  return dir;
}

const gradeWith = (dir: string, name: string, cases = GRADIENT_CASES.filter((c) => !c.hidden)): Promise<SubmissionResult> =>
  grade(dir, name, { assignment: WITH_GRADIENTS, cases, fixtures: loadCaseFixtures(WITH_GRADIENTS, cases) });

describe('the grader, with the gradients part on', () => {
  it('gives the reference full marks, hidden cases included', async () => {
    const result = await gradeWith(folder(GRADIENT_CORRECT[0].file, 'reference'), 'reference', GRADIENT_CASES);
    expect(result.cases.filter((c) => c.status !== 'passed').map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
    expect(result.score).toBe(5.75);
  });

  it('gives the stubs nothing, and says which function to write', async () => {
    const result = await gradeWith(path.join(__dirname, '..', '..', 'student'), 'stubs');
    expect(result.score).toBe(0);
    expect(result.cases.filter((c) => c.status !== 'not_implemented').map((c) => c.name)).toEqual([]);
    expect(new Set(result.cases.map((c) => c.reason.match(/(softmaxBackward|scaledDotProductAttentionBackward)/)?.[1]))).toEqual(new Set(['softmaxBackward', 'scaledDotProductAttentionBackward']));
  });

  it.each(GRADIENT_BUGS.map((e) => [e.name, e] as const))('%s: the same failed tests and the same words as npm test', async (name, entry) => {
    const visible = GRADIENT_CASES.filter((c) => !c.hidden);
    const result = await gradeWith(folder(entry.file, name), name);
    const inProcess = await gradeGradients(await import(entry.file), name, visible, undefined, await import(`${entry.file}?probe`));
    const grader = Object.fromEntries(result.cases.filter((c) => c.status !== 'passed').map((c) => [c.name, c.diagnosis?.message ?? '']));
    const suite = Object.fromEntries(inProcess.filter((r) => !r.passed).map((r) => [r.graded.name, r.diagnosis?.message ?? '']));
    expect(grader).toEqual(suite);
    expect(Object.values(grader).filter((message) => message !== '').length).toBeGreaterThan(0);
    expect(result.cases.filter((c) => c.diagnosis && c.diagnosis.mistake !== entry.mistake && !entry.mayAlsoSay?.includes(c.diagnosis.mistake)).map((c) => c.name)).toEqual([]);
  });
});
