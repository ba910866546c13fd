import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { takeSubmission } from '../intake/intake';
import { PROJECT_ROOT, RUN_TS } from '../paths';
import { checkedSubmission, startTypeCheck } from './run';
import { checkStudent, STUDENT_CHECK_CACHE } from './student';

const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'student-typecheck-'));
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

const reference = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), 'utf8');

/** A copy of the reference as `<dir>/student/`, its imports as a student's (../lib/tensor). */
function studentFolder(dir: string, code = reference, extra: Record<string, string> = {}): string {
  const folder = path.join(temp, dir, 'student');
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'index.ts'), code);
  for (const [file, text] of Object.entries(extra)) fs.writeFileSync(path.join(folder, file), text);
  return folder;
}

/** Lines of `code` with `inserted` placed after each line number of `after` (ascending), and where each landed (line from 1). */
function withLines(code: string, after: readonly number[], inserted: (i: number) => string): { code: string; lines: number[] } {
  const lines = code.split('\n');
  const landed: number[] = [];
  after.forEach((at, i) => {
    lines.splice(at + i, 0, inserted(i));
    landed.push(at + i + 1);
  });
  return { code: lines.join('\n'), lines: landed };
}

const cacheFiles = (root: string) => {
  const dir = path.join(root, '.cache', STUDENT_CHECK_CACHE.kind);
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((name) => path.join(dir, name)) : [];
};

describe("the student's type check (npm run typecheck)", () => {
  it('finds none in the reference, nor in the stubs of student/', () => {
    const cache = path.join(temp, 'cache-clean');
    expect(checkStudent(path.join(PROJECT_ROOT, 'reference'), cache)).toMatchObject({ label: 'reference', errors: [] });
    expect(checkStudent(path.join(PROJECT_ROOT, 'student'), cache)).toMatchObject({ label: 'student', errors: [] });
  });

  it('names each error where it is, as the grader names places (student/index.ts:line:col), in index.ts and a file it imports', () => {
    // Top-level lines between the reference's own declarations: found by the lines that start one.
    const tops = reference.split('\n').flatMap((line, i) => (/^export function /.test(line) ? [i] : []));
    expect(tops.length).toBeGreaterThanOrEqual(3);
    const { code, lines } = withLines(reference, tops, (i) => `export const wrong${i}: number = 'not a number';`);
    const folder = studentFolder('placed', `import { helperValue } from './helper';\nexport const used = helperValue;\n${code}`, {
      'helper.ts': "export const helperValue: string = 42;\n",
      // Not imported by index.ts: not what the grader loads, so not checked.
      'scratch.ts': "export const ignored: number = 'x';\n",
    });
    const { errors, cached } = checkStudent(folder, path.join(temp, 'cache-placed'));
    expect(cached).toBe(false);
    expect([...errors].sort()).toEqual([
      "student/helper.ts:1:14: error TS2322: Type 'number' is not assignable to type 'string'.",
      ...lines.map((line) => `student/index.ts:${line + 2}:14: error TS2322: Type 'string' is not assignable to type 'number'.`),
    ].sort());
  });

  it('says what the grader says of the same code, word for word (one check, two paths)', async () => {
    const { code } = withLines(reference, [0, 5], (i) => (i ? 'export const y: string = 1;' : "export const x: number = 'x';"));
    const folder = studentFolder('same', code);
    const { errors } = checkStudent(folder, path.join(temp, 'cache-same'));
    expect(errors).toHaveLength(2);
    const note = await startTypeCheck([checkedSubmission('student', takeSubmission(folder))])('student');
    expect(note).toEqual([`Type errors (no points; \`npm run typecheck\` shows them):\n${errors.join('\n')}`]);
  });

  it('a second run reuses the first one\'s answer from its cache file; an edit, or another cache, checks afresh', () => {
    const cache = path.join(temp, 'cache-reuse');
    const folder = studentFolder('reuse', `${reference}\nexport const x: number = 'x';\n`);
    const first = checkStudent(folder, cache);
    expect(first.cached).toBe(false);
    expect(first.errors).toHaveLength(1);
    const [file] = cacheFiles(cache);
    expect(cacheFiles(cache)).toHaveLength(1);
    // The kept answer is what the second run says: replaced here, it shows that no check ran.
    const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as { id: string; value: string[] };
    fs.writeFileSync(file, JSON.stringify({ ...entry, value: ['kept answer'] }));
    expect(checkStudent(folder, cache)).toMatchObject({ cached: true, errors: ['kept answer'] });
    // An edit is another name: checked again, and kept beside the first.
    fs.appendFileSync(path.join(folder, 'index.ts'), "export const z: boolean = 'z';\n");
    const edited = checkStudent(folder, cache);
    expect(edited.cached).toBe(false);
    expect(edited.errors).toHaveLength(2);
    expect(cacheFiles(cache)).toHaveLength(2);
    expect(checkStudent(folder, cache)).toMatchObject({ cached: true, errors: edited.errors });
    expect(checkStudent(folder, path.join(temp, 'cache-other')).cached).toBe(false);
  });

  it('the command: every error on its own line, a summary, exit 1; a folder it cannot read is one line, exit 1', async () => {
    const folder = studentFolder('command', `${reference}\nexport const x: number = 'x';\n`);
    const line = reference.split('\n').length + 1;
    const run = (args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [RUN_TS, path.join(PROJECT_ROOT, 'scripts', 'typecheck.ts'), ...args], { cwd: temp, encoding: 'utf8' }, (err, stdout, stderr) => {
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      });
    });
    const bad = await run(['--submission', folder]);
    expect(bad.stdout.trim().split('\n')).toEqual([
      `student/index.ts:${line}:14: error TS2322: Type 'string' is not assignable to type 'number'.`,
      expect.stringMatching(/^typecheck: 1 type error in student\/ \(no points/),
    ]);
    expect(bad.code).toBe(1);
    const missing = await run(['--submission', path.join(temp, 'nowhere')]);
    expect(missing.stderr.trim()).toMatch(/^typecheck: submission folder nowhere not found/);
    expect(missing.code).toBe(1);
  });
});
