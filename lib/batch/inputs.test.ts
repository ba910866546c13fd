import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BatchInputError, checkBatchInputs } from './inputs';
import { listSubmissions } from './listing';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'batch-inputs-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

let made = 0;
/** A fresh folder holding `files` (path → contents; a path ending in / is a folder). */
function folder(files: Record<string, string> = {}): string {
  const dir = path.join(root, `case${made++}`);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    if (file.endsWith('/')) fs.mkdirSync(path.join(dir, file), { recursive: true });
    else {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
  }
  return dir;
}
const refusal = (submissions: string, out: string): string => {
  try {
    checkBatchInputs(submissions, out);
  } catch (err) {
    if (err instanceof BatchInputError) return err.message;
    throw err;
  }
  return '';
};
const outside = () => path.join(folder(), 'grades');
const CODE = 'export {};\n';

/** Ways to write the same folder on a command line: as is, relative, through `..`, through a link to a folder above it. */
function spellings(dir: string): string[] {
  const link = path.join(folder(), 'link');
  fs.symlinkSync(path.dirname(dir), link);
  return [
    dir,
    path.relative(process.cwd(), dir),
    path.join(dir, '..', path.basename(dir), '.', ''),
    path.join(link, path.basename(dir)),
  ];
}

describe('a --submissions folder that is one submission', () => {
  it.each([
    ['index.ts in it', { 'index.ts': CODE }, 'index.ts itself: it is one submission'],
    ['index.js in it', { 'index.js': CODE, 'helpers.js': CODE }, 'index.js itself: it is one submission'],
    ['a student folder in a copy of the project', { 'student/index.ts': CODE, 'package.json': '{}', 'lib/': '', 'tests/': '' }, "student/index.ts beside the project's files: it is one student's copy of the project"],
    ['a GitHub zip of the project, unpacked', { 'student/index.ts': CODE, 'tsconfig.json': '{}', 'README.md': '' }, "student/index.ts beside the project's files: it is one student's copy of the project"],
  ])('%s: refused with the hint to use --submission', (_, files, words) => {
    const dir = folder(files);
    expect(refusal(dir, outside())).toBe(`--submissions ${dir} holds ${words}; grade it with --submission ${dir} (--submissions takes a folder with one subfolder per submission)`);
  });

  it('an index.ts that is a link counts too (the intake refuses it by name)', () => {
    const dir = folder({ 'alice/index.ts': CODE });
    fs.symlinkSync(path.join(dir, 'alice', 'index.ts'), path.join(dir, 'index.ts'));
    expect(refusal(dir, outside())).toMatch(/holds index\.ts itself/);
  });

  it('a batch is a batch: submissions a level down, one of them named student, a folder that holds a copy of the project', () => {
    const batches: Record<string, string>[] = [
      { 'alice/index.ts': CODE, 'bob/student/index.ts': CODE },
      { 'student/index.ts': CODE, 'alice/index.ts': CODE },
      { 'attention-main/student/index.ts': CODE, 'attention-main/package.json': '{}' },
    ];
    for (const files of batches) expect(refusal(folder(files), outside())).toBe('');
  });
});

describe('--out and --submissions that overlap', () => {
  it('--out the same folder as --submissions, however it is spelt', () => {
    const subs = folder({ 'alice/index.ts': CODE });
    for (const out of spellings(subs)) expect(refusal(subs, out), out).toMatch(/^--out .* and --submissions .* are the same folder: /);
  });

  it('--out inside --submissions, or inside one of its submissions, however it is spelt, existing or not', () => {
    const subs = folder({ 'alice/index.ts': CODE, 'results/': '' });
    for (const base of spellings(subs)) {
      for (const out of [path.join(base, 'results'), path.join(base, 'new', 'deeper'), path.join(base, 'alice', 'grades'), path.join(base, 'x', '..', 'y')]) {
        expect(refusal(subs, out), out).toBe(`--out ${out} is inside --submissions ${subs}: the next run would grade the results as a submission; put --out outside it`);
      }
    }
  });

  it("--submissions at or under --out's own folders; elsewhere in --out it is fine", () => {
    const course = folder({ 'submissions/alice/index.ts': CODE, '.cache/x/alice/index.ts': CODE, 'subs/alice/index.ts': CODE });
    for (const out of spellings(course)) {
      expect(refusal(path.join(course, 'submissions'), out)).toMatch(/^--submissions .* is .*submissions, where the batch writes its own files: /);
      expect(refusal(path.join(course, '.cache', 'x'), out)).toMatch(/is .*\.cache, where the batch writes its own files/);
      expect(refusal(path.join(course, 'subs'), out)).toBe('');
    }
  });

  it('a sibling whose name begins the same is not inside', () => {
    const parent = folder({ 'subs/alice/index.ts': CODE });
    expect(refusal(path.join(parent, 'subs'), path.join(parent, 'subs-grades'))).toBe('');
  });
});

describe('a --submissions folder with nothing to grade', () => {
  it('no subfolder, only dot-folders, only files: refused, archives named', () => {
    expect(refusal(folder(), outside())).toMatch(/holds no submission: each submission is a subfolder of it/);
    expect(refusal(folder({ '.git/x': '', 'notes.txt': '' }), outside())).toMatch(/holds no submission: /);
    expect(refusal(folder({ 'alice.zip': '', 'bob.ZIP': '', 'c.tar.gz': '' }), outside())).toMatch(/holds no submission: it holds 3 archive\(s\): unpack each into a folder of its own$/);
  });

  it('repositories fetch-submissions could not fetch are rows of their own: not empty', () => {
    const dir = folder({ '.fetched.json': JSON.stringify({ about: '', repositories: { alice: { slug: 'o/alice', error: 'not found' } } }) });
    expect(refusal(dir, outside())).toBe('');
  });
});

describe("a batch's results left among the submissions", () => {
  it('are not submissions: left out, and said', () => {
    const dir = folder({ 'alice/index.ts': CODE, 'old-grades/grades.csv': '', 'old-grades/submissions/alice.json': '{}', 'bob/grades.csv': '', 'bob/index.ts': CODE });
    expect(checkBatchInputs(dir, outside())).toEqual({ leftOut: ['old-grades'] });
    expect(listSubmissions(dir).sort()).toEqual(['alice', 'bob']);
  });

  it('a folder of only old results is an empty batch', () => {
    expect(refusal(folder({ 'grades/grades.csv': '', 'grades/submissions/': '' }), outside())).toMatch(/holds no submission/);
  });
});
