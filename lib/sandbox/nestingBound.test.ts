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
import { PROJECT_ROOT } from '../paths';
import { NESTING_LIMIT, nestingPastBound, nestingProblem } from './nestingBound';

/** The deepest count a source reaches: the least limit it passes. */
function depthOf(source: string): number {
  let low = 0;
  let high = 1 << 20;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (nestingPastBound(source, mid) === undefined) high = mid;
    else low = mid + 1;
  }
  return low;
}

interface Construct {
  /** The source nested `k` steps deep. */
  source: (k: number) => string;
  /** What one step adds to the count (an open bracket: 1; `{a:` a bracket and an operator: 2). */
  step: number;
  /** The text of a step, where a refused source must be refused. */
  token: RegExp;
}

const repeat = (text: string, k: number) => text.repeat(k);
/** Every kind of bracket and every kind of chain, each as a statement of its own. */
const CONSTRUCTS: Record<string, Construct> = {
  parentheses: { source: (k) => `x = ${repeat('(', k)}1${repeat(')', k)};`, step: 1, token: /^\($/ },
  brackets: { source: (k) => `x = ${repeat('[', k)}1${repeat(']', k)};`, step: 1, token: /^\[$/ },
  objects: { source: (k) => `x = ${repeat('{a:', k)}1${repeat('}', k)};`, step: 2, token: /^[{:]$/ },
  blocks: { source: (k) => `function f() ${repeat('{', k)}${repeat('}', k)}`, step: 1, token: /^\{$/ },
  templates: { source: (k) => `x = ${repeat('`${', k)}1${repeat('}`', k)};`, step: 1, token: /^`$/ },
  typeArguments: { source: (k) => `type T = ${repeat('Array<', k)}number${repeat('>', k)};`, step: 1, token: /^<$/ },
  typeArgumentsAfterCommas: { source: (k) => `type T = ${repeat('Map<string, ', k)}number${repeat('>', k)};`, step: 1, token: /^<$/ },
  not: { source: (k) => `x = ${repeat('!', k)}1;`, step: 1, token: /^!$/ },
  minus: { source: (k) => `x = ${repeat('- ', k)}1;`, step: 1, token: /^-$/ },
  typeof: { source: (k) => `x = ${repeat('typeof ', k)}1;`, step: 1, token: /^t$/ },
  new: { source: (k) => `x = ${repeat('new ', k)}Object;`, step: 1, token: /^n$/ },
  await: { source: (k) => `async function f() { return ${repeat('await ', k)}1; }`, step: 1, token: /^a$/ },
  spread: { source: (k) => `x = ${repeat('[...', k)}[]${repeat(']', k)};`, step: 2, token: /^[[.]$/ },
  assignments: { source: (k) => `${repeat('a = ', k)}1;`, step: 1, token: /^=$/ },
  conditionals: { source: (k) => `x = ${repeat('a ? 1 : ', k)}1;`, step: 2, token: /^[?:]$/ },
  arrows: { source: (k) => `x = ${repeat('a => ', k)}1;`, step: 1, token: /^=$/ },
  asyncArrows: { source: (k) => `x = ${repeat('async a => ', k)}1;`, step: 2, token: /^[a=]$/ },
  exponents: { source: (k) => `x = ${repeat('2 ** ', k)}1;`, step: 1, token: /^\*$/ },
  sums: { source: (k) => `x = ${repeat('1 + ', k)}1;`, step: 1, token: /^\+$/ },
  members: { source: (k) => `x = a${repeat('.b', k)};`, step: 1, token: /^\.$/ },
  calls: { source: (k) => `x = a${repeat('()', k)};`, step: 1, token: /^\($/ },
  nonNull: { source: (k) => `x = a${repeat('!', k)};`, step: 1, token: /^!$/ },
  casts: { source: (k) => `x = a${repeat(' as any', k)};`, step: 1, token: /^a$/ },
  taggedTemplates: { source: (k) => `x = a${repeat('`t`', k)};`, step: 1, token: /^`$/ },
  nestedIfs: { source: (k) => `${repeat('if (a) ', k)}a;`, step: 1, token: /^[i(]$/ },
  nestedIfsOnLines: { source: (k) => `${repeat('if (a)\n', k)}a;`, step: 1, token: /^[i(]$/ },
  elseIfs: { source: (k) => `if (a) {} ${repeat('else if (a) {} ', k)}`, step: 2, token: /^[ei(]$/ },
  elseIfsAfterSemicolons: { source: (k) => `if (a) a; ${repeat('else if (a) a; ', k)}`, step: 2, token: /^[ei(]$/ },
  elseIfsOnLines: { source: (k) => `if (a) a\n${repeat('else if (a) a\n', k)}`, step: 2, token: /^[ei(]$/ },
  doWhiles: { source: (k) => `${repeat('do ', k)}a;${repeat(' while (a);', k)}`, step: 2, token: /^[dw(]$/ },
  labels: { source: (k) => `${Array.from({ length: k }, (_, i) => `l${i}: `).join('')};`, step: 1, token: /^:$/ },
  classHeritage: { source: (k) => `x = ${repeat('class extends ', k)}Object {}${repeat(' {}', k - 1)};`, step: 2, token: /^[ce{]$/ },
  keyof: { source: (k) => `type T = ${repeat('keyof ', k)}string;`, step: 1, token: /^k$/ },
  conditionalTypes: { source: (k) => `type T<X> = ${repeat('X extends 1 ? 1 : ', k)}0;`, step: 3, token: /^[e?:]$/ },
  functionTypes: { source: (k) => `type T = ${repeat('() => ', k)}void;`, step: 1, token: /^[=(v]$/ },
  functionsInChains: { source: (k) => `x = ${repeat('!function f() { return ', k)}1${repeat('}', k)};`, step: 5, token: /^[!f({r]$/ },
};

describe('nestingPastBound', () => {
  it.each(Object.entries(CONSTRUCTS))('%s: each step counts; at the bound it passes, one step past it is refused at a step', (_name, { source, step, token }) => {
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
