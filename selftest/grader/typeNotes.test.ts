/**
 * Type errors reach the grader's result as an unscored note (lib/typecheck), for one submission
 * and, from one checking process, for a batch; a submission without type errors gets none.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gradeBatch } from '../../lib/batch/gradeBatch';
import { gradeSubmission } from '../../lib/grading/grade';
import { gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';

const work = tempDir('type-notes');
const bugs = path.join(__dirname, '..', 'catalogue', 'bugs');

/** scale_missing with a type error that changes nothing at run time. */
function typeErrorSubmission(): string {
  const dir = materialize(path.join(bugs, 'scale_missing.ts'), path.join(work, 'one'), 'typed_wrong');
  fs.appendFileSync(path.join(dir, 'index.ts'), "\nexport const dimension: number = 'sixty-four';\n");
  return dir;
}

let batch: ReturnType<typeof gradeBatch> | undefined;
/** scale_missing as it is and with the type error, graded as a batch (one checking process for both), once. */
function graded(): ReturnType<typeof gradeBatch> {
  if (batch) return batch;
  const subs = path.join(work, 'batch');
  materialize(path.join(bugs, 'scale_missing.ts'), subs, 'clean');
  fs.cpSync(typeErrorSubmission(), path.join(subs, 'typed_wrong'), { recursive: true });
  const { typeNotes: _, ...options } = gradeOptions();
  return (batch = gradeBatch(subs, path.join(work, 'out'), { ...options, jobs: 2, force: true }));
}

describe('type errors as an unscored note', () => {
  it('one submission: the note names the place as every message does (typed_wrong/index.ts:<line>:14); the points are those of the same code without it', async () => {
    const { typeNotes: _, ...options } = gradeOptions();
    const result = await gradeSubmission(typeErrorSubmission(), 'typed_wrong', options);
    const note = result.feedback.find((f) => f.startsWith('Type errors'));
    expect(note).toMatch(/^Type errors \(no points; `npm run typecheck` shows them\):\ntyped_wrong\/index\.ts:\d+:14: error TS2322: Type 'string' is not assignable to type 'number'\.$/);
    const clean = (await graded()).graded.find((r) => r.name === 'clean')!;
    expect(clean.feedback.filter((f) => f.startsWith('Type errors'))).toEqual([]);
    expect(result.score).toBe(clean.score);
  });

  it('a batch: each submission its own note', async () => {
    const outcome = await graded();
    const notes = Object.fromEntries(outcome.graded.map((r) => [r.name, r.feedback.filter((f) => f.startsWith('Type errors')).length]));
    expect(notes).toEqual({ clean: 0, typed_wrong: 1 });
  });
});
