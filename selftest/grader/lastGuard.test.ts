/**
 * The batch's last guard (lib/grading/lastGuard.ts): an error that escapes every handler during a
 * batch ends the work in flight as grader failures, grades what is left in a later run, and still
 * writes grades.csv and batch.json; the process lives to say so.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { resultsFile } from '../../lib/report/batchReport';
import { materialize, tempDir } from './materialize';

it('an uncaught error mid-batch: the finished result is kept, the rest are grader-failure rows, and the batch files are written', () => {
  const root = tempDir('guard');
  const submissions = path.join(root, 'submissions');
  for (const name of ['a', 'b', 'c']) materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, name);
  const out = path.join(root, 'out');
  const run = spawnSync(process.execPath, [RUN_TS, path.join(__dirname, 'lastGuardRun.ts'), submissions, out], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 300_000 });
  expect(run.status, run.stderr).toBe(0);
  const outcome = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { graderErrors: string[]; graded: [string, number, string, string][] };
  expect(outcome.graded.map(([name, score]) => [name, score])).toEqual([['a', 12], ['b', 0], ['c', 0]]);
  expect(outcome.graderErrors).toEqual(['b', 'c']);
  expect(outcome.graded[1][3]).toMatch(/an error no handler caught/);
  expect(outcome.graded[2][3]).toMatch(/not graded: the grader stopped .* the next run grades it/);
  expect(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8').split(/\r?\n/).filter(Boolean)).toHaveLength(4);
  expect(fs.existsSync(path.join(out, 'batch.json'))).toBe(true);
  // No record keeps a grader failure: the next run regrades b and c.
  for (const name of ['b', 'c']) {
    const written = JSON.parse(fs.readFileSync(path.join(out, resultsFile(name)), 'utf8')) as { extra_data: { graded_with: { submission: unknown } } };
    expect(written.extra_data.graded_with.submission).toBeNull();
  }
});
