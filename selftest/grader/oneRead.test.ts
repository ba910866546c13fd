/**
 * One read per submission: a batch takes each folder once, and the hash it records, the type check
 * and the grading all use that snapshot. A folder changed after it was read (here: between the first
 * submission's result and the second's grading) is graded as it was read, and the next run, seeing
 * another hash, regrades it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { gradeBatch } from '../../lib/batch/gradeBatch';
import { PROJECT_ROOT } from '../../lib/paths';
import { gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';

it('a folder changed after the batch read it is graded as read, and regraded on the next run', async () => {
  const root = tempDir('one-read');
  const submissions = path.join(root, 'submissions');
  for (const name of ['a', 'b']) materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, name);
  const stub = fs.readFileSync(path.join(PROJECT_ROOT, 'student', 'index.ts'), 'utf8');
  const out = path.join(root, 'out');
  const first = await gradeBatch(submissions, out, {
    ...gradeOptions(), jobs: 1, force: false,
    onDone: (result) => {
      // After a's result, before b is graded: b's folder now holds the stubs.
      if (result.name === 'a') fs.writeFileSync(path.join(submissions, 'b', 'index.ts'), stub);
    },
  });
  expect(first.graded.map((r) => [r.name, r.score])).toEqual([['a', 12], ['b', 12]]);
  const again = await gradeBatch(submissions, out, { ...gradeOptions(), jobs: 1, force: false });
  expect(again.regraded.get('b')).toBe('edited');
  expect(again.graded.map((r) => [r.name, r.score])).toEqual([['b', 0]]);
});
