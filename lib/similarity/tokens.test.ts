/**
 * The similarity check's tokens (tokens.ts, normalise.ts): each spelling of one meaning gives the
 * tokens of every other, and code that means something else does not.
 */
import { describe, expect, it } from 'vitest';
import { spanOf, tokenise } from './tokens';

const same = (a: string, b: string) => expect(tokenise(b).tokens.join(' '), `${a}  ≡  ${b}`).toBe(tokenise(a).tokens.join(' '));
const differ = (a: string, b: string) => expect(tokenise(b).tokens.join(' '), `${a}  ≢  ${b}`).not.toBe(tokenise(a).tokens.join(' '));

describe('tokens', () => {
  it('renaming, reformatting and re-commenting change nothing; a changed operator does', () => {
    same('export function f(x: number) { return x * 2; } // double', '/* twice */\nexport function g(\n  value: number\n) {\n  return value * 99;\n}\n');
    differ('export function f(x: number) { return x * 2; }', 'export function f(x: number) { return x + 2; }');
    expect(tokenise('x.matmul(y)').tokens).toEqual(['$', '.', 'matmul', '(', '$', ')']);
  });

  it('a name the scanner calls a keyword (out, type, of) is a name like any other', () => {
    same('const out = a / 2; for (const x of out) f(x);', 'const res = a / 2; for (const x of res) f(x);');
    same('let type = 1;', 'let kind = 1;');
  });

  it('each token keeps the line and column of its text', () => {
    const { tokens, spans } = tokenise('let a = 1;\n  f(a)');
    expect(tokens).toEqual(['let', '$', '=', 'num', '$', '(', '$', ')']);
    expect(spanOf(spans, 4)).toEqual([1, 2, 1, 2]);
    expect(spanOf(spans, 7)).toEqual([1, 5, 1, 5]);
  });
});

describe('syntax that changes nothing changes no token', () => {
  const cases: [string, string, string][] = [
    ['semicolons', 'a(b)\nc = d\nreturn e', 'a(b);;\nc = d;\nreturn e;'],
    ['grouping parentheses', 'const y = a * b + f(c, d)', 'const y = ((a) * (b)) + (f((c), ((d))))'],
    ['parentheses an arrow body needs', 'const f = (x) => ({ y: x })', 'function f(x) { return { y: x }; }'],
    ['trailing commas', 'f(a, [b, c], { d: 1 })', 'f(a, [b, c,], { d: 1, },)'],
    ['braces around one statement', 'if (a) b(); else c(); for (;;) d(); while (e) f();', 'if (a) { b(); } else { c(); } for (;;) { d(); } while (e) { f(); ; }'],
    ['else if', 'if (a) b(); else if (c) d();', 'if (a) b(); else { if (c) d(); }'],
    ['let, const and var', 'let a = 1; let b = 2;', 'const a = 1, b = 2;'],
    ['var', 'for (let i = 0; i < n; i++) s();', 'for (var i = 0; i < n; i++) s();'],
    ['compound assignment', 'x = x + (a + b); y[i] = y[i] * c;', 'x += a + b; y[i] *= c;'],
    ['increments', 'i = i + 1; j = j - 1; k = k + 1;', 'i++; --j; k += 1;'],
    ['type annotations', 'function f(a, b) { const c = a; return c; }', 'function f(a: number, b?: Tensor): number { const c: number = a; return c; }'],
    ['assertions', 'const t = x; y.z;', 'const t = <Tensor>(x as unknown as Tensor) satisfies Tensor; y!.z;'],
    ['type parameters and arguments', 'function f(a) { return new Array(a); } g(h);', 'function f<T extends number>(a: T): T[] { return new Array<T>(a); } g<number>(h);'],
    ['interfaces, type aliases, overloads, imports', 'function f(x) { return x; }',
      "import { Tensor } from '../lib/tensor';\ninterface W { q: Tensor }\ntype N = number;\nfunction f(x: number): number;\nfunction f(x) { return x; }\nexport { f };"],
    ['modifiers', 'class A { x = 1; f() {} } function g() {}', 'export class A { private readonly x = 1; public f() {} } export default function g() {}'],
    ['arrow, function expression and declaration', 'function f(x) { return x * 2; }', 'const f = (x: number): number => x * 2;'],
    ['function expression', 'function f(x) { return x * 2; }', 'export const f = function (x) { return x * 2; };'],
    ['callbacks', 'xs.map(function (x) { return x + 1; })', 'xs.map(x => x + 1)'],
    ['strict equality', 'a === b; c !== d;', 'a == b; c != d;'],
    ['shorthand properties', 'const o = { shape: shape, data: data }; const { a: a } = o;', 'const o = { shape, data }; const { a } = o;'],
    ['brackets for a property', 'o.data.length', "o['data'][\"length\"]"],
    ['optional chaining', 'a.b.c(d[e]); f(g)', 'a?.b.c?.(d?.[e]); f?.(g)'],
    ['new without arguments', 'const m = new Map();', 'const m = new Map;'],
    ['bare blocks', 'a(); b(); c();', '{ a(); { b(); } } c();'],
    ['statements that do nothing', 'function f(x) { return x; }', "'use strict';\nfunction f(x) { 'step'; 0; void 0; x; debugger; return x; }"],
    ['braces around one statement and a no-op', 'if (a) b();', "if (a) { 'why'; b(); }"],
  ];
  for (const [what, a, b] of cases) it(what, () => same(a, b));

  it('what changes the meaning still changes the tokens', () => {
    differ('const y = (a + b) * c', 'const y = a + b * c');
    differ('x = x - 1', 'x = x + 1');
    differ('if (a) { b(); c(); }', 'if (a) b(); c();');
    differ('o.data', 'o.shape');
    differ('a < b', 'a <= b');
    differ('f(x);', 'x;');
    differ('a.b', 'a.c');
  });

  it('copies of copies add no more tokens than the text has characters', () => {
    const nested = `a${'[a'.repeat(2000)}${'] += 1'.repeat(2000)} += 1`;
    expect(tokenise(nested).tokens.length).toBeLessThanOrEqual(2 * nested.length);
  });

  it('a text the parser cannot take (nesting past its stack) is still tokenised, without the rewrites', () => {
    const deep = `x = ${'('.repeat(200_000)}a${')'.repeat(200_000)};`;
    const { tokens } = tokenise(deep);
    expect(tokens.length).toBe(400_003);
    expect(tokens.slice(0, 3)).toEqual(['$', '=', '(']);
  });
});
