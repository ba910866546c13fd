/**
 * The nesting bound, over generated sources: every bracket and every chain counts, exactly at the
 * bound a source passes and one step past it is refused at the step that crossed; what sits in a
 * string, a comment, a template's text or a regular expression does not count; what parsers read
 * as one statement is never split by the scanner's resets (an `else` after `;`, a `do`'s `while`,
 * type arguments after a comma); and honest code (the reference, the catalogue's solutions) stays
 * far below the bound.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { depthOf, NESTING_CONSTRUCTS } from '../bench/nesting';
import { PROJECT_ROOT } from '../paths';
import { NESTING_LIMIT, nestingPastBound, nestingProblem } from './nestingBound';

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

  it("honest code stays far below the bound: the reference and the catalogue's solutions, correct and buggy", () => {
    const files = ['reference', 'selftest/catalogue'].flatMap((dir) =>
      (fs.readdirSync(path.join(PROJECT_ROOT, dir), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(PROJECT_ROOT, dir, f)));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) expect(depthOf(fs.readFileSync(file, 'utf8')), file).toBeLessThan(NESTING_LIMIT / 4);
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
