/**
 * Links out of a fetched course. A Classroom repository whose student/index.ts linked to
 * ../../../reference/index.ts got the reference's 14.5/14.5 once classroom/grade-course.yml's
 * artifact carried the submissions to the grading machines (an artifact stores a link as its
 * target's bytes); one that linked to a classmate got their points. Here:
 * - the fetch refuses every repository that holds anything but regular files and folders (a link
 *   to a file or a folder, relative or absolute, to the reference or a classmate, nested, hidden,
 *   dangling; a submodule): each is a row naming the entry, and no folder is left;
 * - names an artifact would refuse (":" and "?", which failed the whole upload) travel in the
 *   workflow's tar and are graded;
 * - a link that reaches the grading machine anyway (a folder made by hand) stays a link through the
 *   workflow's tar, the artifact and the unpacking, and the grader refuses it. Carried as a folder,
 *   as the workflow once carried it, the same link is graded as the reference: the control that shows
 *   the break is real.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cloneRepositories } from '../../lib/batch/fetch';
import { FETCHED_FILE, type FetchedRecord } from '../../lib/batch/fetched';
import { gradeBatch } from '../../lib/batch/gradeBatch';
import { PROJECT_ROOT } from '../../lib/paths';
import { gradeOptions } from '../grader/harness';
import { materialize, tempDir } from '../grader/materialize';
import { downloadArtifact, uploadArtifact, type UploadOptions } from './artifact';

const root = tempDir('fetch-links');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const REFERENCE = path.join(PROJECT_ROOT, 'reference', 'index.ts');

interface Step {
  name: string;
  run?: string;
  with?: Record<string, string | boolean>;
}
const workflow = parse(fs.readFileSync(path.join(PROJECT_ROOT, 'classroom', 'grade-course.yml'), 'utf8')) as { jobs: Record<string, { steps: Step[] }> };
const step = (job: string, name: string) => workflow.jobs[job].steps.find((s) => s.name === name)!;

/** A step's `run` as a runner runs it, in `cwd`. */
function run(s: Step, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', s.run!], { cwd }, (err, _out, stderr) => (err ? reject(new Error(`${s.name}: ${stderr}`)) : resolve()));
  });
}

/** Makes the repository's files in `work` (its student/ folder exists); each returns the entry its reason must name. */
const HOSTILE: Record<string, (work: string) => string> = {
  'link-to-reference': (work) => link('../../../reference/index.ts', work, 'student/index.ts'),
  'link-absolute': (work) => link(REFERENCE, work, 'student/index.ts'),
  'link-to-classmate': (work) => link('../../honest/student/index.ts', work, 'student/index.ts'),
  'link-to-a-folder': (work) => {
    fs.rmSync(path.join(work, 'student'), { recursive: true });
    return link('../honest/student', work, 'student');
  },
  'link-nested': (work) => {
    fs.writeFileSync(path.join(work, 'student', 'index.ts'), "export * from './helpers/attention';\n");
    fs.mkdirSync(path.join(work, 'student', 'helpers'));
    return link(REFERENCE, work, 'student/helpers/attention.ts');
  },
  'link-hidden': (work) => {
    materializeInto(work);
    return link(REFERENCE, work, 'student/.scratch.ts');
  },
  'link-dangling': (work) => link('../nowhere.ts', work, 'student/index.ts'),
  submodule: (work) => {
    materializeInto(work);
    const vendor = path.join(work, 'student', 'vendor');
    fs.mkdirSync(vendor);
    fs.writeFileSync(path.join(vendor, 'index.ts'), 'export {};\n');
    git(vendor, ['init', '--quiet']);
    git(vendor, ['add', '-A']);
    git(vendor, ['commit', '--quiet', '-m', 'vendor']);
    return 'student/vendor';
  },
};

function link(target: string, work: string, entry: string): string {
  fs.symlinkSync(target, path.join(work, entry));
  return entry;
}

function materializeInto(work: string): void {
  materialize(REFERENCE, work, 'student');
}

const git = (cwd: string, args: string[]) => execFileSync('git', ['-c', 'user.name=Student', '-c', 'user.email=s@example.org', ...args], { cwd, stdio: 'ignore' });

/** A bare repository `<root>/github/course/<name>.git`; `make` fills the working tree first. */
function repository(name: string, make: (work: string) => string | void): string | void {
  const work = path.join(root, 'work', name);
  fs.mkdirSync(path.join(work, 'student'), { recursive: true });
  const entry = make(work);
  git(work, ['init', '--quiet']);
  git(work, ['add', '-A']);
  git(work, ['commit', '--quiet', '-m', 'solution']);
  git(root, ['clone', '--quiet', '--bare', work, path.join(root, 'github', 'course', `${name}.git`)]);
  return entry;
}

const entries: Record<string, string> = {};
beforeAll(() => {
  repository('honest', materializeInto);
  // Names an artifact refuses: the whole upload failed on them.
  repository('odd-names', (work) => {
    materializeInto(work);
    fs.writeFileSync(path.join(work, 'student', 'notes: v1?.md'), 'scratch\n');
  });
  for (const [name, make] of Object.entries(HOSTILE)) entries[name] = repository(name, make) as string;
});

describe('fetching a course', () => {
  it('refuses every repository that holds a link or a submodule, naming the entry; no folder of it is left', async () => {
    const out = path.join(root, 'fetched');
    const names = ['honest', 'odd-names', ...Object.keys(HOSTILE)];
    const outcome = await cloneRepositories(names.map((name) => ({ slug: `course/${name}`, name })), out, { baseUrl: `${path.join(root, 'github')}${path.sep}`, jobs: 2 });
    expect(outcome.fetched).toBe(2);
    expect(fs.readdirSync(out).sort()).toEqual([FETCHED_FILE, 'honest', 'odd-names']);
    const record = JSON.parse(fs.readFileSync(path.join(out, FETCHED_FILE), 'utf8')) as FetchedRecord;
    for (const [name, entry] of Object.entries(entries)) {
      const kind = name === 'submodule' ? 'a submodule' : 'a symbolic link';
      expect(record.repositories[name].error, name).toBe(
        `${JSON.stringify(entry)} is ${name === 'submodule' ? 'a submodule (a link to another repository)' : kind}: a submission is regular files only; commit the file itself`,
      );
    }
    const graded = await gradeBatch(out, path.join(root, 'fetched-graded'), { ...gradeOptions(), jobs: 2, force: true });
    const score = Object.fromEntries(graded.graded.map((r) => [r.name, r.score]));
    expect(score).toEqual({ honest: 12, 'odd-names': 12, ...Object.fromEntries(Object.keys(HOSTILE).map((name) => [name, 0])) });
    for (const name of Object.keys(HOSTILE)) expect(graded.graded.find((r) => r.name === name)!.cases[0].reason).toMatch(/^not fetched: .*regular files only/);
  });
});

describe("a link that reaches the grading machines anyway: the workflow's tar keeps it a link", () => {
  /** The submissions folder as an instructor might make it by hand: one honest, one linking to the reference, one to the honest one. */
  function handmade(machine: string): string {
    const submissions = path.join(machine, 'submissions');
    materialize(REFERENCE, submissions, 'honest');
    fs.mkdirSync(path.join(submissions, 'linked', 'student'), { recursive: true });
    fs.symlinkSync('../../../reference/index.ts', path.join(submissions, 'linked', 'student', 'index.ts'));
    fs.mkdirSync(path.join(submissions, 'copycat'));
    fs.symlinkSync('../honest/index.ts', path.join(submissions, 'copycat', 'index.ts'));
    // The first machine is the instructor's checkout: ../../../reference resolves there.
    fs.symlinkSync(path.join(PROJECT_ROOT, 'reference'), path.join(machine, 'reference'));
    return submissions;
  }

  async function gradeOn(machine: string): Promise<Record<string, { score: number; reason: string }>> {
    const outcome = await gradeBatch(path.join(machine, 'submissions'), path.join(machine, 'graded'), { ...gradeOptions(), jobs: 2, force: true });
    return Object.fromEntries(outcome.graded.map((r) => [r.name, { score: r.score, reason: r.cases[0].reason }]));
  }

  it('packed, carried and unpacked as the workflow does: both links refused, the honest one graded', async () => {
    const first = path.join(root, 'tar', 'first');
    handmade(first);
    await run(step('submissions', 'Pack them as they are'), first);
    const stored = uploadArtifact(first, step('submissions', 'Keep them for the graders').with as unknown as UploadOptions);
    const second = path.join(root, 'tar', 'second');
    downloadArtifact(stored, path.join(second, String(step('grade', 'Fetch the submissions').with?.path)));
    await run(step('grade', 'Unpack the submissions'), second);
    const graded = await gradeOn(second);
    expect(graded.honest.score).toBe(12);
    for (const name of ['linked', 'copycat']) {
      expect(graded[name].score, name).toBe(0);
      expect(graded[name].reason, name).toMatch(/index\.ts is a symbolic link/);
    }
  });

  it('carried as a folder, as an artifact carries one, the link arrives as the reference (the break this closes)', async () => {
    const first = path.join(root, 'folder', 'first');
    handmade(first);
    const stored = uploadArtifact(first, { path: 'submissions', 'include-hidden-files': true, 'if-no-files-found': 'error' });
    downloadArtifact(stored, path.join(root, 'folder', 'second', 'submissions'));
    const graded = await gradeOn(path.join(root, 'folder', 'second'));
    expect(graded.linked.score).toBe(12);
    expect(graded.copycat.score).toBe(12);
  });
});
