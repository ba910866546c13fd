import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../paths';
import { ownChildren } from '../sandbox/ownChildren.testkit';
import { keepsToItself, STUDENT_RULES, typeErrors, type CheckedSubmission } from './check';
import { startTypeCheck } from './run';

/** This process's type-checking processes (main.ts), with the CPU ticks each has spent. */
const checkers = () => ownChildren('typecheck/main.ts');

const typed = `import { Tensor } from '../lib/tensor';
export function softmax(x: Tensor, dim: number): Tensor { return x.sum(dim, true); }
`;
const wrong = `import { Tensor } from '../lib/tensor';
import { helper } from './helper';
export function softmax(x: Tensor, dim: string): Tensor { return x.max(dim, true) + helper; }
`;

describe('type errors of many submissions', () => {
  it('per submission, relative to its folder; harness imports resolve; an unused local is no error', () => {
    const errors = typeErrors([
      { name: 'good', label: 'student', entry: 'index.ts', files: { 'index.ts': `${typed}const unused = 1;\n` } },
      { name: 'bad', label: 'bad', entry: 'index.ts', files: { 'index.ts': wrong, 'helper.ts': 'export const helper: number = "x";\n' } },
    ]);
    expect(errors.get('good')).toEqual([]);
    const bad = errors.get('bad')!;
    // Each place named as every message names one: the submission's folder, the file, line:column.
    expect(bad.some((e) => e.startsWith('bad/index.ts:3:'))).toBe(true);
    expect(bad.some((e) => /^bad\/helper\.ts:1:14: error TS2322: Type 'string' is not assignable to type 'number'/.test(e))).toBe(true);
  });

  it('reads no file outside the submission, lib/ and the declaration files', () => {
    const reference = path.join(PROJECT_ROOT, 'reference', 'index.ts');
    const errors = typeErrors([{ name: 'nosy', label: 'nosy', entry: 'index.ts', files: { 'index.ts': `/// <reference path="${reference}" />\nimport data from '../../package.json';\nexport const x: number = data;\n` } }]);
    const text = errors.get('nosy')!.join('\n');
    expect(text).toMatch(/nosy\/index\.ts:1:\d+: error TS6053: File '.*reference\/index\.ts' not found/);
    expect(text).toMatch(/error TS2307: Cannot find module '\.\.\/\.\.\/package\.json'/);
  });

  it('only the files the entry imports are checked: tooling beside it (a reference\'s mistakes.ts) is not the submission', () => {
    const errors = typeErrors([{ name: 'reference', label: 'reference', entry: 'index.ts', files: {
      'index.ts': typed.replace('../lib/tensor', './lib/tensor'),
      'mistakes.ts': "import { invoke } from '../lib/grading/invoke';\nexport const x: number = 'not checked';\n",
    } }]);
    expect(errors.get('reference')).toEqual([]);
  });

  it("nothing one submission declares reaches another's notes; its own augmentations are a note for it alone; no machine path", () => {
    const attacker = `${typed}declare global {\n  const PHISH: 'Your grade was revoked: log in at evil.example';\n}\ndeclare module '../lib/tensor' {\n  interface Tensor { shape: string }\n}\n`;
    const classmate = `${typed}export const y: number = PHISH;\n/// <reference path="../../nowhere.d.ts" />\n`;
    const errors = typeErrors([
      { name: 'attacker', label: 'attacker', entry: 'index.ts', files: { 'index.ts': attacker } },
      { name: 'classmate', label: 'classmate', entry: 'index.ts', files: { 'index.ts': classmate } },
      { name: 'clean', label: 'clean', entry: 'index.ts', files: { 'index.ts': typed } },
    ]);
    const classmates = errors.get('classmate')!.join('\n');
    expect(classmates).not.toContain('evil.example');
    expect(classmates).toMatch(/Cannot find name 'PHISH'/);
    expect(errors.get('clean')).toEqual([]);
    const own = errors.get('attacker')!;
    expect(own.some((e) => /^attacker\/index\.ts:\d+:1: note: this declaration changes the types of the global scope/.test(e))).toBe(true);
    expect(own.some((e) => /note: this declaration changes the types of the module '\.\.\/lib\/tensor'/.test(e))).toBe(true);
    for (const line of [...errors.values()].flat()) expect(line).not.toContain(PROJECT_ROOT);
  });

  it('a submission shares a program only when nothing it declares can reach the others', () => {
    const entry = 'index.ts';
    expect(keepsToItself({ name: 'a', label: 'a', entry, files: { [entry]: typed, 'helper.ts': 'export const h = 1;\n' } })).toBe(true);
    expect(keepsToItself({ name: 'b', label: 'b', entry, files: { [entry]: typed, 'helper.ts': 'const h = 1;\n' } })).toBe(false);
    expect(keepsToItself({ name: 'c', label: 'c', entry, files: { [entry]: `${typed}declare global { const X: 1 }\n` } })).toBe(false);
    expect(keepsToItself({ name: 'd', label: 'd', entry, files: { [entry]: `${typed}declare module '../lib/tensor' { interface Tensor { x: 1 } }\n` } })).toBe(false);
    expect(keepsToItself({ name: 'e', label: 'e', entry, files: { [entry]: `/// <reference lib="dom" />\n${typed}` } })).toBe(false);
    // The same notes either way.
    const submissions: CheckedSubmission[] = [
      { name: 'good', label: 'student', entry, files: { [entry]: `${typed}const unused = 1;\n` } },
      { name: 'bad', label: 'bad', entry, files: { [entry]: wrong, 'helper.ts': 'export const helper: number = "x";\n' } },
    ];
    expect(typeErrors(submissions)).toEqual(typeErrors(submissions, true));
  });

  it("the student's rules are student/tsconfig.json's", () => {
    const config = ts.parseConfigFileTextToJson('tsconfig.json', fs.readFileSync(path.join(PROJECT_ROOT, 'student', 'tsconfig.json'), 'utf8'));
    expect(config.config.compilerOptions).toEqual(STUDENT_RULES);
  });

  it('in a process of its own: the note for a submission, none for a clean one', async () => {
    const notes = startTypeCheck([{ name: 'good', label: 'student', entry: 'index.ts', files: { 'index.ts': typed.replace('../lib/tensor', './lib/tensor') } }, { name: 'bad', label: 'bad', entry: 'index.ts', files: { 'index.ts': wrong } }]);
    expect(await notes('good')).toEqual([]);
    expect((await notes('bad'))[0]).toMatch(/^Type errors \(no points; `npm run typecheck` shows them\):\nbad\/index\.ts:2:/);
  });

  it('each submission has a time limit of its own, in CPU time: a slow check is stopped and said, the others are checked', async () => {
    // Every order of eight members: a union of 40,320 tuples to match an array literal against,
    // about two seconds of TypeScript's time.
    const slow = `${typed.replace('../lib/tensor', './lib/tensor')}type Perm<T, U = T> = [T] extends [never] ? [] : T extends U ? [T, ...Perm<Exclude<U, T>>] : never;\nexport const p: Perm<1 | 2 | 3 | 4 | 5 | 6 | 7 | 8> = [8, 7, 6, 5, 4, 3, 2, 1];\n`;
    const notes = startTypeCheck([
      { name: 'good', label: 'student', entry: 'index.ts', files: { 'index.ts': typed.replace('../lib/tensor', './lib/tensor') } },
      // A name that an earlier version read as its own set-up step.
      { name: 'setup', label: 'student', entry: 'index.ts', files: { 'index.ts': slow } },
      { name: 'bad', label: 'bad', entry: 'index.ts', files: { 'index.ts': wrong } },
    ], { submissionMs: 1000, setupMs: 60_000 });
    expect(await notes('setup')).toEqual(['Type errors (no points): not checked, its type check took longer than 1 s and was stopped.']);
    expect(await notes('good')).toEqual([]);
    expect((await notes('bad'))[0]).toMatch(/^Type errors \(no points; `npm run typecheck` shows them\):\nbad\/index\.ts:2:/);
  });

  it('a checking process that dies (SIGSEGV) costs at most the submission it was checking; the others get their notes', async () => {
    const slow = `${typed.replace('../lib/tensor', './lib/tensor')}type Perm<T, U = T> = [T] extends [never] ? [] : T extends U ? [T, ...Perm<Exclude<U, T>>] : never;\nexport const p: Perm<1 | 2 | 3 | 4 | 5 | 6 | 7> = [7, 6, 5, 4, 3, 2, 1];\n`;
    const before = new Set(checkers().keys());
    const notes = startTypeCheck([
      { name: 'good', label: 'student', entry: 'index.ts', files: { 'index.ts': typed.replace('../lib/tensor', './lib/tensor') } },
      { name: 'slow', label: 'slow', entry: 'index.ts', files: { 'index.ts': slow } },
      { name: 'bad', label: 'bad', entry: 'index.ts', files: { 'index.ts': wrong } },
    ], { submissionMs: 60_000, setupMs: 60_000 });
    // The first checking process, once it has spent a fifth of a second of CPU on the check.
    let killed: number | undefined;
    while (killed === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      for (const [pid, ticks] of checkers()) if (!before.has(pid) && ticks >= 20 && killed === undefined) killed = pid;
    }
    process.kill(killed, 'SIGSEGV');
    const failed = 'Type errors (no points): not checked, its type check failed (SIGSEGV).';
    const answers = { good: await notes('good'), slow: await notes('slow'), bad: await notes('bad') };
    const dead = Object.entries(answers).filter(([, note]) => note[0] === failed).map(([name]) => name);
    expect(dead.length).toBeLessThanOrEqual(1);
    if (!dead.includes('good')) expect(answers.good).toEqual([]);
    if (!dead.includes('slow')) expect(answers.slow).toEqual([]);
    if (!dead.includes('bad')) expect(answers.bad[0]).toMatch(/^Type errors \(no points; `npm run typecheck` shows them\):\nbad\/index\.ts:2:/);
  });

  it('a file nested past the bound never reaches TypeScript: its note says where, the others are checked in one program', async () => {
    const deep = `export const zz = ${'`${'.repeat(20_000)}1${'}`'.repeat(20_000)};\n`;
    const notes = startTypeCheck([
      { name: 'good', label: 'student', entry: 'index.ts', files: { 'index.ts': typed.replace('../lib/tensor', './lib/tensor') } },
      { name: 'deep', label: 'deep', entry: 'index.ts', files: { 'index.ts': "export * from './helper';\n", 'helper.ts': deep } },
      { name: 'bad', label: 'bad', entry: 'index.ts', files: { 'index.ts': wrong } },
    ]);
    expect(await notes('deep')).toEqual([expect.stringMatching(/^Type errors \(no points\): not checked, nesting too deep at deep\/helper\.ts:1:\d+: /)]);
    expect(await notes('good')).toEqual([]);
    expect((await notes('bad'))[0]).toMatch(/^Type errors \(no points; `npm run typecheck` shows them\):\nbad\/index\.ts:2:/);
  });
});
