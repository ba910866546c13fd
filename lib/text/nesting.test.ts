/**
 * The nesting pre-scan (nesting.ts): its measure on generated nestings of every kind it counts,
 * where it refuses, what it leaves alone (strings, comments, regular expressions, real code), and
 * that whatever it accepts TypeScript's parser reads without overflowing its stack.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../paths';
import { MAX_NESTING, nestingReason, tooDeep } from './nesting';

/** One level of a generated nesting: the text before and after what it holds, what it adds to the measure, and its prefix operators. */
interface Level {
  before: string;
  after: string;
  adds: number;
  prefixes: number;
}

// Each followed by a space: `+` `+` is two operators, `++` one.
const prefixes = fc.array(fc.constantFrom('! ', '~ ', '- ', '+ ', 'typeof ', 'void ', 'await ', 'new '), { maxLength: 3 });
const LEVEL: fc.Arbitrary<Level> = fc.oneof(
  fc.tuple(prefixes, fc.constantFrom(['(', ')'], ['[', ']'], ['{ a: ', ' }'], ['f(', ')'], ['`${', '}`'], ['`x${a}y${', '}z`']))
    // Prefix operators before a name (`!f(`) apply to it, not to the bracket after it.
    .map(([ops, [open, close]]) => ({ before: `${ops.join('')}${open}`, after: close, adds: 1 + (open === 'f(' ? 0 : ops.length), prefixes: ops.length })),
  fc.constantFrom('a = ', 'a ? b : ', 'x => ', 'a ** ', 'a += ').map((op) => ({ before: op, after: '', adds: 1, prefixes: 0 })),
);

const build = (levels: readonly Level[]) => `const x = ${levels.map((l) => l.before).join('')}1${[...levels].reverse().map((l) => l.after).join('')};\n`;
/** The deepest the measure goes: at a level's last prefix operator, or inside the innermost level. */
const measure = (levels: readonly Level[]) => {
  let [sum, peak] = [0, 0];
  for (const level of levels) {
    peak = Math.max(peak, sum + level.prefixes);
    sum += level.adds;
  }
  return Math.max(peak, sum);
};

describe('tooDeep', () => {
  it('measures generated nestings of brackets, templates, prefix and chained operators exactly', () => {
    fc.assert(fc.property(fc.array(LEVEL, { minLength: 1, maxLength: 60 }), (levels) => {
      const text = build(levels);
      // `const x =` is one chained operator of its own.
      const depth = measure(levels) + 1;
      expect(tooDeep(text, depth), text).toBeUndefined();
      expect(tooDeep(text, depth - 1), text).toBeDefined();
    }), { seed: 40_41, numRuns: 300 });
  });

  it('names the line and column where the text first nests past the limit', () => {
    const text = `// header\nlet a = 1;\nx = ${'('.repeat(MAX_NESTING + 5)}1${')'.repeat(MAX_NESTING + 5)};\n`;
    // `=` counts 1, so the opener that passes the limit is the 256th.
    expect(tooDeep(text)).toEqual({ line: 3, column: 5 + MAX_NESTING - 1 });
    expect(tooDeep(`\r\n\r\n  ${'!'.repeat(1000)}1`)).toEqual({ line: 3, column: 3 + MAX_NESTING });
  });

  it('counts nothing inside strings, comments, regular expressions and template text', () => {
    const opens = '(['.repeat(5000);
    const texts = [`const s = '${opens}';`, `// ${opens}\n`, `/* ${opens} */`, `const r = /\\(\\[(?:x)[([]/;`.repeat(2000),
      `const t = \`${opens}\`;`, `const t = \`\${a}${opens}\${b}\`;`, `x = a / b / (c) / d;`.repeat(5000)];
    for (const text of texts) expect(tooDeep(text), text.slice(0, 60)).toBeUndefined();
  });

  it('a chain ends at a comma, a semicolon or a line break; a level ends at its closer, unbalanced closers included', () => {
    expect(tooDeep('a = 1, '.repeat(5000))).toBeUndefined();
    expect(tooDeep('x = a ? b : c;\n'.repeat(5000))).toBeUndefined();
    expect(tooDeep('x = a ? b : c\n'.repeat(5000))).toBeUndefined();
    expect(tooDeep('f(g(h(1)));'.repeat(5000))).toBeUndefined();
    expect(tooDeep(')]}'.repeat(5000) + '(1)')).toBeUndefined();
    expect(tooDeep('let v: Map<string, Array<Set<number>>> = m;\n'.repeat(5000))).toBeUndefined();
  });

  it('every TypeScript file of this project nests less than a tenth of the limit', () => {
    const files = execFileSync('git', ['-C', PROJECT_ROOT, 'ls-files', '*.ts'], { encoding: 'utf8' }).trim().split('\n');
    expect(files.length).toBeGreaterThan(100);
    const deep = files.filter((file) => tooDeep(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8'), MAX_NESTING / 10));
    expect(deep).toEqual([]);
  });

  it("whatever it accepts, TypeScript's parser reads without overflowing its stack", () => {
    // Each kind alone at the most the limit lets through, and generated mixtures of them.
    const kinds = ['(', '[', '{ a: ', 'f(', '`${', '!', 'typeof ', 'new ', 'a = ', 'a ? b : ', 'x => ', 'a ** ', 'A<'];
    const closer: Record<string, string> = { '(': ')', '[': ']', '{ a: ': ' }', 'f(': ')', '`${': '}`', 'A<': '>' };
    for (const kind of kinds) {
      // `=` counts 1 (a type's `:` does not): this many levels bring the measure to the limit.
      const n = kind === 'A<' ? MAX_NESTING : MAX_NESTING - 1;
      const text = kind === 'A<' ? `let x: ${kind.repeat(n)}B${'>'.repeat(n)};` : `x = ${kind.repeat(n)}1${(closer[kind] ?? '').repeat(n)};`;
      expect(tooDeep(text), kind).toBeUndefined();
      expect(tooDeep(text, MAX_NESTING - 1), kind).toBeDefined();
      expect(() => ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest), kind).not.toThrow();
    }
    fc.assert(fc.property(fc.array(LEVEL, { minLength: Math.floor(MAX_NESTING / 3), maxLength: MAX_NESTING }), (levels) => {
      const text = build(levels);
      fc.pre(tooDeep(text) === undefined);
      expect(() => ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest)).not.toThrow();
    }), { seed: 41, numRuns: 50 });
  });

  it('the reason reads as a syntax error: the place first, then what to do', () => {
    expect(nestingReason('alice/index.ts:3:9')).toMatch(/^alice\/index\.ts:3:9: the code nests more than 256 levels deep here .*: no solution needs that; write it as a few named steps$/);
  });
});
