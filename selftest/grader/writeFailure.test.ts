/**
 * A submission whose files cannot be written (here: a folder stands where its result goes, as a
 * full disk or a name the file system refuses would stop it) is that submission's row, never the
 * batch's end: the others are graded and written, grades.csv, the report and batch.json are
 * written, and the run reports a grader failure so that the next run grades it again; the command
 * exits 1 saying so.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { gradeBatch } from '../../lib/batch/gradeBatch';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { RECORD_FILE, resultsFile } from '../../lib/report/batchReport';
import { csvRecords } from '../../lib/report/exports';
import { gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';

it("a result that cannot be written is its submission's row; the batch goes on and writes everything else", async () => {
  const root = tempDir('write-failure');
  const submissions = path.join(root, 'submissions');
  const out = path.join(root, 'out');
  for (const name of ['Blocked', 'fine']) materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, name);
  fs.mkdirSync(path.join(out, resultsFile('Blocked')), { recursive: true });
  const outcome = await gradeBatch(submissions, out, { ...gradeOptions({ timeoutMs: 30_000 }), jobs: 2, force: false, html: true });
  expect(outcome.graderErrors).toEqual(['Blocked']);
  const rows = Object.fromEntries(csvRecords(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8')).map((r) => [r.name, r]));
  expect(rows.fine.total).toBe('12');
  expect(rows.Blocked.status).toMatch(/^not graded: the grader could not write its result \(EISDIR\); fix that and run the same command again$/);
  expect(fs.existsSync(path.join(out, RECORD_FILE))).toBe(true);
  expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('Blocked');
  // Once the obstacle is gone, the next run grades it and keeps the other.
  fs.rmSync(path.join(out, resultsFile('Blocked')), { recursive: true });
  const again = await gradeBatch(submissions, out, { ...gradeOptions({ timeoutMs: 30_000 }), jobs: 2, force: false, html: true });
  expect([again.skipped, again.graded.map((r) => r.name)]).toEqual([['fine'], ['Blocked']]);
});

it('npm run grade on such a batch exits 1, naming the submission and what to do, after writing every file', () => {
  const root = tempDir('write-failure-command');
  const submissions = path.join(root, 'submissions');
  const out = path.join(root, 'out');
  // A file that does not parse: its row costs no child, and its result still has to be written.
  fs.mkdirSync(path.join(submissions, 'Blocked'), { recursive: true });
  fs.writeFileSync(path.join(submissions, 'Blocked', 'index.ts'), 'export const x = [1, 2;\n');
  fs.mkdirSync(path.join(out, resultsFile('Blocked')), { recursive: true });
  const run = spawnSync(process.execPath, [RUN_TS, 'scripts/grade.ts', '--submissions', submissions, '--out', out], {
    cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, GITHUB_ACTIONS: '' }, timeout: 300_000,
  });
  expect(run.status, run.stderr).toBe(1);
  expect(run.stderr).toContain('grade: the grader itself failed on 1 submission(s) (Blocked): fix the cause and rerun (only those are graded again)');
  expect(csvRecords(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8')).map((r) => r.name)).toEqual(['Blocked']);
  expect(fs.existsSync(path.join(out, RECORD_FILE))).toBe(true);
});
