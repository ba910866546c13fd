/**
 * Fetching a course (lib/batch/fetch.ts, scripts/fetch-submissions.ts) from local repositories:
 * one that cannot be fetched (gone, a committed file name too long for the file system, no commit
 * before the deadline) is a row of its own and every other is graded; --deadline takes the last
 * commit before it; every result records the commit it graded.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FETCHED_FILE } from '../../lib/batch/fetched';
import { gradeBatch } from '../../lib/batch/gradeBatch';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { resultsFile } from '../../lib/report/batchReport';
import { gradeOptions } from './harness';
import { tempDir } from './materialize';

const root = tempDir('fetch');
const github = path.join(root, 'github');
const REFERENCE = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8').replace(/'\.\.\/lib\//g, "'../../lib/");
const STUB = fs.readFileSync(path.join(PROJECT_ROOT, 'student', 'index.ts'), 'utf8');

function git(cwd: string, args: string[], date = '2026-11-20T12:00:00Z'): string {
  return execFileSync('git', args, {
    cwd, encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x', GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  }).trim();
}

/** A bare repository course-org/<name>.git whose commits put these files in student/, at these dates. */
function repository(name: string, commits: { date: string; index: string }[]): string[] {
  const work = path.join(root, 'work', name);
  fs.mkdirSync(path.join(work, 'student'), { recursive: true });
  git(work, ['init', '--quiet', '-b', 'main']);
  const shas = commits.map(({ date, index }) => {
    fs.writeFileSync(path.join(work, 'student', 'index.ts'), index);
    git(work, ['add', '-A'], date);
    git(work, ['commit', '--quiet', '-m', date], date);
    return git(work, ['rev-parse', 'HEAD']);
  });
  git(root, ['clone', '--quiet', '--bare', work, path.join(github, 'course-org', `${name}.git`)]);
  return shas;
}

let shas: Record<string, string[]>;

beforeAll(() => {
  shas = {
    'attention-ada': repository('attention-ada', [{ date: '2026-11-20T12:00:00Z', index: REFERENCE }]),
    // Right before the deadline, then a stub pushed after it: the deadline grades the first.
    'attention-bo': repository('attention-bo', [{ date: '2026-11-30T10:00:00Z', index: REFERENCE }, { date: '2026-12-02T10:00:00Z', index: STUB }]),
    'attention-late': repository('attention-late', [{ date: '2026-12-03T10:00:00Z', index: REFERENCE }]),
  };
  // A committed file whose name no Linux file system can hold: git stores it, a checkout cannot write it.
  const long = path.join(root, 'work', 'attention-long');
  fs.mkdirSync(long, { recursive: true });
  git(long, ['init', '--quiet', '-b', 'main']);
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: long, input: 'x\n', encoding: 'utf8' }).trim();
  git(long, ['update-index', '--add', '--cacheinfo', `100644,${blob},${'n'.repeat(300)}.ts`]);
  git(long, ['commit', '--quiet', '-m', 'long']);
  git(root, ['clone', '--quiet', '--bare', long, path.join(github, 'course-org', 'attention-long.git')]);
  fs.writeFileSync(path.join(root, 'list.txt'), ['attention-ada', 'attention-bo', 'attention-late', 'attention-long', 'attention-gone'].map((n) => `course-org/${n}`).join('\n'));
});

function fetch(out: string, extra: string[] = []) {
  return spawnSync(process.execPath, [RUN_TS, 'scripts/fetch-submissions.ts', '--repositories', path.join(root, 'list.txt'), '--out', out, ...extra], {
    cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, SUBMISSIONS_BASE_URL: `${github}${path.sep}` },
  });
}

describe('fetching a course', () => {
  it('a repository that cannot be fetched is a row of its own; the others are fetched and graded, each with its commit', async () => {
    const subs = path.join(root, 'now');
    const run = fetch(subs);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^fetch-submissions: not fetched: course-org\/attention-gone \(.+\)$/m);
    expect(run.stderr).toMatch(/^fetch-submissions: not fetched: course-org\/attention-long \(.*(too long|File name).*\)$/mi);
    expect(run.stdout).toMatch(/fetched 3 of 5 submissions/);
    expect(fs.readdirSync(subs).sort()).toEqual([FETCHED_FILE, 'attention-ada', 'attention-bo', 'attention-late']);

    const out = path.join(root, 'graded-now');
    const outcome = await gradeBatch(subs, out, { ...gradeOptions(), jobs: 2, force: false });
    const rows = Object.fromEntries(outcome.rows.map((r) => [r.name, r]));
    expect(Object.keys(rows).sort()).toEqual(['attention-ada', 'attention-bo', 'attention-gone', 'attention-late', 'attention-long']);
    const result = (name: string) => JSON.parse(fs.readFileSync(path.join(out, resultsFile(name)), 'utf8'));
    expect(result('attention-gone').output).toMatch(/^Your submission could not be run[^]*not fetched: /);
    expect(result('attention-gone').score).toBe(0);
    expect(result('attention-ada').extra_data.commit).toBe(shas['attention-ada'][0]);
    // Without a deadline: the default branch as it is, the stub pushed last.
    expect(result('attention-bo').extra_data.commit).toBe(shas['attention-bo'][1]);
    expect(result('attention-ada').score).toBe(12);
  });

  it('--deadline grades the last commit before it; a repository with none is a row saying so', async () => {
    const subs = path.join(root, 'deadline');
    const run = fetch(subs, ['--deadline', '2026-12-01T00:00:00Z']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/not fetched: course-org\/attention-late \(no commit before the deadline 2026-12-01T00:00:00Z\)/);
    const out = path.join(root, 'graded-deadline');
    await gradeBatch(subs, out, { ...gradeOptions(), jobs: 2, force: false });
    const result = (name: string) => JSON.parse(fs.readFileSync(path.join(out, resultsFile(name)), 'utf8'));
    expect(result('attention-bo').extra_data.commit).toBe(shas['attention-bo'][0]);
    expect(result('attention-bo').score).toBe(12);
    expect(result('attention-late').score).toBe(0);
  });

  it('refuses a deadline that is not a time, and exits 1 when nothing could be fetched', () => {
    const bad = fetch(path.join(root, 'bad'), ['--deadline', 'next friday']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--deadline next friday is not a time: write it as ISO 8601/);
    fs.writeFileSync(path.join(root, 'gone.txt'), 'course-org/attention-gone\n');
    const none = spawnSync(process.execPath, [RUN_TS, 'scripts/fetch-submissions.ts', '--repositories', path.join(root, 'gone.txt'), '--out', path.join(root, 'none')], {
      cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, SUBMISSIONS_BASE_URL: `${github}${path.sep}` },
    });
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/no repository could be fetched/);
  });
});
