/**
 * The nesting bound, over generated sources: every bracket and every chain counts, exactly at the
 * bound a source passes and one step past it is refused at the step that crossed; what sits in a
 * string, a comment, a template's text or a regular expression does not count; what parsers read
 * as one statement is never split by the scanner's resets (an `else` after `;`, a `do`'s `while`,
 * type arguments after a comma); and honest code (the reference, the catalogue's solutions) stays
 * far below the bound; whatever it lets through TypeScript parses; and the place and the words of a
 * refusal, which the load check, the type check and the similarity check all give.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { depthOf, NESTING_CONSTRUCTS, stepsWithin } from '../bench/nesting';
import { PROJECT_ROOT } from '../paths';
import { NESTING_LIMIT, nestingPastBound, nestingProblem, nestingReason, tooDeep } from './nesting';

describe('nestingPastBound', () => {
  it.each(Object.entries(NESTING_CONSTRUCTS))('%s: each step counts; at the bound it passes, one step past it is refused at a step', (_name, { source, step, token }) => {
    const base = depthOf(source(1)) - step;
    for (const k of [2, 5, 17]) expect(depthOf(source(k))).toBe(base + step * k);
    for (const limit of [NESTING_LIMIT, 57]) {
      const k = Math.floor((limit - base) / step);
      // The deepest source within the bound passes; the next is refused at one of its steps.
      expect(nestingPastBound(source(k), limit)).toBeUndefined();
      const refused = source(k + 1);
      const at = nestingPastBound(refused, limit);
      expect(at, refused.slice(0, 80)).toBeDefined();
      expect(refused[at!]).toMatch(token);
    }
  });

  it.each([
    ['a single-quoted string', (deep: string) => `x = '${deep}';`],
    ['a double-quoted string with escapes', (deep: string) => `x = "\\"${deep}\\\\";`],
    ["a template's text", (deep: string) => `x = \`${deep.replace(/\$\{/g, '$ {')}\${1}${deep.replace(/\$\{/g, '$ {')}\`;`],
    ['a line comment', (deep: string) => `x = 1; // ${deep}\ny = 2;`],
    ['a block comment', (deep: string) => `x = /* ${deep}\n${deep} */ 1;`],
    ['a regular expression', (deep: string) => `x = /${deep}/g.test(s);`],
    ['a regular expression with a class', (deep: string) => `x = s.replace(/[/]${deep}/, '');`],
    ['a regular expression after return', (deep: string) => `function f() { return /${deep}/; }`],
  ])('brackets and operators inside %s do not count', (_where, wrap) => {
    for (const deep of ['('.repeat(1000), '!'.repeat(1000), '{'.repeat(1000), '${'.repeat(1000), '<'.repeat(1000)]) {
      expect(depthOf(wrap(deep))).toBeLessThan(10);
    }
  });

  it('statements one after another do not add up, with or without semicolons, on one line or many', () => {
    const statement = 'total = total + a * b - c.d(e)[f]';
    for (const separator of [';\n', '\n', ';']) expect(depthOf(Array(2000).fill(statement).join(separator))).toBeLessThan(12);
    const members = Array.from({ length: 2000 }, (_, i) => `m${i}(a: number): number { return a + ${i} }`).join(' ');
    expect(depthOf(`class A { ${members} }`)).toBeLessThan(12);
    expect(depthOf(`switch (x) { ${Array.from({ length: 2000 }, (_, i) => `case ${i}:`).join('\n')} break; }`)).toBeLessThan(12);
    expect(depthOf(`const a = [${Array.from({ length: 2000 }, (_, i) => `-${i} * 2`).join(', ')}];`)).toBeLessThan(12);
  });

  it('a closer that closes nothing open, or the wrong bracket, never lowers the count', () => {
    const stray = `x = ${'('.repeat(150)}${']'.repeat(150)}${'('.repeat(150)}1;`;
    expect(nestingPastBound(stray)).toBeDefined();
  });

  it('a chain ends at a comma or a statement; a level at its closer; types close their `<`', () => {
    for (const text of ['a = 1, '.repeat(5000), 'x = a ? b : c;\n'.repeat(5000), 'x = a ? b : c\n'.repeat(5000), 'f(g(h(1)));'.repeat(5000),
      ')]}'.repeat(5000) + '(1)', 'let v: Map<string, Array<Set<number>>> = m;\n'.repeat(5000), 'x = a / b / (c) / d;'.repeat(5000)]) {
      expect(depthOf(text), text.slice(0, 40)).toBeLessThan(10);
    }
  });

  it('every TypeScript file of this project stays under a quarter of the bound', () => {
    const files = execFileSync('git', ['-C', PROJECT_ROOT, 'ls-files', '*.ts'], { encoding: 'utf8' }).trim().split('\n');
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((file) => nestingPastBound(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8'), NESTING_LIMIT / 4) !== undefined)).toEqual([]);
  });

  it("whatever it lets through, TypeScript's parser reads on this thread without overflowing its stack", () => {
    for (const [name, construct] of Object.entries(NESTING_CONSTRUCTS)) {
      const source = construct.source(stepsWithin(construct, NESTING_LIMIT));
      expect(nestingPastBound(source), name).toBeUndefined();
      expect(() => ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest), name).not.toThrow();
    }
  });

  it("honest code stays far below the bound: the reference and the catalogue's solutions, correct and buggy", () => {
    const files = ['reference', 'selftest/catalogue'].flatMap((dir) =>
      (fs.readdirSync(path.join(PROJECT_ROOT, dir), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(PROJECT_ROOT, dir, f)));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) expect(depthOf(fs.readFileSync(file, 'utf8')), file).toBeLessThan(NESTING_LIMIT / 4);
  });
});

describe('tooDeep and nestingReason', () => {
  it('name the line and column of the token that crossed the bound, as TypeScript counts lines', () => {
    const text = `// header\nlet a = 1;\nx = ${'('.repeat(NESTING_LIMIT + 5)}1${')'.repeat(NESTING_LIMIT + 5)};\n`;
    // `=` counts 1: the opener that passes the bound is the NESTING_LIMIT-th.
    expect(tooDeep(text)).toEqual({ line: 3, column: 5 + NESTING_LIMIT - 1 });
    expect(tooDeep(`\r\n\r\n  ${'!'.repeat(1000)}1`)).toEqual({ line: 3, column: 3 + NESTING_LIMIT });
    expect(tooDeep(`a;\u2028${'['.repeat(1000)}`)).toEqual({ line: 2, column: NESTING_LIMIT + 1 });
    expect(tooDeep(text.replace(/\(|\)/g, ''))).toBeUndefined();
  });

  it('the reason reads as a syntax error: what, the place, then what to do', () => {
    expect(nestingReason('alice/index.ts:3:9')).toBe(`nesting too deep at alice/index.ts:3:9: more than ${NESTING_LIMIT} brackets and operators inside one another; simplify the code there (give inner parts names of their own)`);
  });
});

describe('nestingProblem', () => {
  it('names the file, line and column where the bound was crossed, and what to do', () => {
    const deep = `export const x = ${'('.repeat(NESTING_LIMIT)}1${')'.repeat(NESTING_LIMIT)};`;
    const problem = nestingProblem(`// a helper\r\nexport const ok = 1;\n${deep}\n`, 'student', 'helpers.ts');
    const [, column] = /^nesting too deep at student\/helpers\.ts:3:(\d+): /.exec(problem ?? '') ?? [];
    expect(deep[Number(column) - 1]).toBe('(');
    expect(problem).toMatch(new RegExp(`: more than ${NESTING_LIMIT} brackets and operators inside one another; simplify the code there \\(give inner parts names of their own\\)$`));
    expect(nestingProblem(deep.replace(/\(|\)/g, ''), 'student', 'helpers.ts')).toBeUndefined();
  });
});
