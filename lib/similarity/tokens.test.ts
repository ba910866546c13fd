/**
 * The similarity check's tokens (tokens.ts, normalise.ts): each spelling of one meaning gives the
 * tokens of every other, and code that means something else does not.
 */
import { describe, expect, it } from 'vitest';
import { NESTING_LIMIT } from '../text/nesting';
import { normalisingEdits } from './normalise';
import { spanOf, tokenise, TooDeepError } from './tokens';

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
    ['pure statements of any shape', 'f(x);', "typeof Math; f(x); []; ({}); a + b * c; !x; -y; x.shape; x[i].data; [1, 'a', ...z]; ({ a: 1, [k]: v, m() { g(); } }); "
      + 'void 0; (() => h()); `t${x}`; a ? b : c; a && b; a, b; typeof typeof x; -(+(~x)); a in b; a instanceof B; new.target;'],
    ['pure left operands of commas', 'y = g(a, b) * c; return d;', "y = (0, g)((0, a), (typeof Math, 'x', [], b)) * (0, c); return 0, (1, d);"],
    ['parentheses a comma leaves needed or not', 'z = (a + b) * c; x += a + b; y = f(a);', 'z = (0, a + b) * c; x += (0, a + b); y = (0, f)((0, (a)));'],
    ['branches a constant condition never takes', 'a(); b(); c();',
      'if (0) { junk(); } a(); if (!1) x(); else { b(); } while (false) { y(); } for (; 0;) z(); if (typeof q) c(); else w();'],
    ['operands a constant never hands over to', 'x = a; y = b; z = c; w = d;', 'x = 0 ? f() : a; y = 1 && b; z = null ?? c; w = (void 0) || d;'],
    ['a constant branch in a body or a block', 'for (;;) a(); if (c) { d(); e(); }', 'for (;;) if (1) { a(); } if (c) { if ("yes") { d(); e(); } }'],
    ['do … while (0)', 'a(); b();', 'do { a(); b(); } while (0);'],
    ['labels', 'for (;;) { if (a) break; continue; }', 'outer: for (;;) { if (a) break outer; continue outer; }'],
    ['statements that do nothing, nested', 'f();', 'f(); if (x) {} if (y) { 0; } else { [y]; } { { ; } } while (0) g(); l: ;'],
  ];
  for (const [what, a, b] of cases) it(what, () => same(a, b));

  it('what changes the meaning still changes the tokens', () => {
    differ('const y = (a + b) * c', 'const y = a + b * c');
    differ('x = x - 1', 'x = x + 1');
    differ('if (a) { b(); c(); }', 'if (a) b(); c();');
    differ('y = o.data', 'y = o.shape');
    differ('y = a < b', 'y = a <= b');
    differ('f(x);', 'x;');
    differ('y = a.b', 'y = a.c');
  });

  it('code that may do something stays: a call, new, an assignment, a loop that may run, the branch a condition may take', () => {
    for (const code of ['f(x);', 'new A();', 'x = 1;', 'i++;', '--i;', 'delete a.b;', 'tag`x`;', 'await p;', '(class { static { f(); } });',
      'if (f()) {}', 'while (x) {}', 'for (;;) {}', 'for (let i = g(); 0;) {}', 'do {} while (x);', 'throw e;', 'let v = 0;', 'function g() {}',
      '[f()];', '({ a: f() });', '({ [f()]: 1 });', 'a[f()];', '`${f()}`;', 'x.y = 1;', 'a || f();', '0 || f();', '1 && f();', 'null ?? f();']) {
      differ('', code);
    }
    differ('y = x', 'y = (f(), x)');
    differ('y = b', 'y = c ? a : b');
    differ('y = a', 'y = x && a');
    differ('b();', 'if (x) a(); else b();');
    differ('a();', 'do { a(); } while (x);');
    differ('x = a', 'x = 1 || a');
    differ('x = a', 'x = 0 && a');
  });

  it('copies of copies add no more tokens than the text has characters', () => {
    const depth = NESTING_LIMIT / 2 - 2;
    const nested = `a${'[a'.repeat(depth)}${'] += 1'.repeat(depth)} += 1;\n`.repeat(50);
    expect(tokenise(nested).tokens.length).toBeLessThanOrEqual(2 * nested.length);
  });

  it('a text that nests deeper than the parser may be handed is refused before it is parsed, naming where', () => {
    const deep = `let a = 1;\nx = ${'('.repeat(200_000)}a${')'.repeat(200_000)};`;
    expect(() => tokenise(deep)).toThrow(TooDeepError);
    expect(() => tokenise(deep)).toThrow(`nests more than ${NESTING_LIMIT} levels deep at line 2, column ${4 + NESTING_LIMIT}`);
  });

  it('a left chain past the bound is refused before it is parsed; one within it, and a list of any length, are read', () => {
    // oxc's tree of a left chain is as deep as the chain (the load check refuses it): one bound for every reader.
    for (const link of [' + a', '.b', '()']) {
      expect(() => tokenise(`x = a${link.repeat(50_000)};`), link).toThrow(TooDeepError);
      expect(tokenise(`x = a${link.repeat(NESTING_LIMIT / 4)};`).tokens.length, link).toBeGreaterThan(NESTING_LIMIT / 4);
    }
    expect(tokenise(`x = ${'0, '.repeat(50_000)}1;`).tokens.length).toBeGreaterThan(50_000);
    expect(tokenise(`${'0, '.repeat(50_000)}1;`).tokens).toEqual([]);
  });

  it("the walks after the parser keep stacks of their own: a chain of 50,000 links costs them nothing", () => {
    // 50,000 links: a recursive walk over these trees overflows its stack at about 10,000.
    for (const chain of ['a + '.repeat(50_000), 'a.b'.repeat(50_000) + ' + ', 'f()'.repeat(50_000) + ' + ']) {
      expect(() => normalisingEdits(`x = ${chain}1;`)).not.toThrow();
    }
  });
});
