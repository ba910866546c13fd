import { describe, expect, it } from 'vitest';
import { scanModule } from './imports';

const specifiers = (source: string) => scanModule(source, 'index.ts', 'student').imports.map((i) => i.specifier);
const problems = (source: string) => scanModule(source, 'index.ts', 'student').problems;

describe('scanModule', () => {
  it('finds every import, those TypeScript and vite elide included', () => {
    const source = [
      "import { unused } from './unused';",
      "import type { T } from './types';",
      "import { type U, v } from './mixed';",
      "export * from './all';",
      "export type { X } from './typesOut';",
      "export { y } from './named';",
      "import z = require('./equals');",
      "type W = import('./typeQuery').W;",
      "// import { no } from './comment';",
      "const s = \"import { no } from './string'\";",
      'export function later() { return import(\'./dynamic\'); }',
    ].join('\n');
    expect(specifiers(source)).toEqual(['./unused', './types', './mixed', './all', './typesOut', './named', './equals', './typeQuery', './dynamic']);
    expect(scanModule(source, 'index.ts', 'student').imports[1].place).toBe('student/index.ts:2:24');
    // A place is the specifier's, lines counted as TypeScript counts them: \r\n is one line end, a lone \r another.
    expect(scanModule("// a\r\n// b\rimport './x';", 'index.ts', 'student').imports[0].place).toBe('student/index.ts:3:8');
  });

  it('names what one loader would run and the other could not', () => {
    expect(problems("export function f() { return require('./x'); }")).toEqual([
      "student/index.ts:1:30 calls require(): use import … from '…' instead (your code runs as an ES module under npm test)",
    ]);
    expect(problems('export const here = import.meta.url;')[0]).toMatch(/^student\/index\.ts:1:\d+ uses import\.meta/);
    expect(problems('export const x = await Promise.resolve(1);')[0]).toMatch(/top-level await/);
    expect(problems('for await (const x of []) console.log(x);')[0]).toMatch(/for await outside a function/);
    expect(problems('export function f(name: string) { return import(name); }')[0]).toMatch(/imports a path computed when it runs/);
  });

  it('leaves await inside functions, and a require reached through a variable, alone', () => {
    expect(problems('export async function f() { await g(); for await (const x of []) {} }\nconst h = async () => await g();\nasync function g() {}')).toEqual([]);
    expect(problems('const load = require;\nexport const m = load;')).toEqual([]);
  });

  it('says where a file does not parse, and JavaScript parses as JavaScript', () => {
    expect(problems('let a = 1;\nexport const f = (x: number) => x +;\n')).toEqual(['syntax error at student/index.ts:2:36: Unexpected token']);
    expect(problems('let a = 1;\nlet a = 2;\n')).toEqual(['syntax error at student/index.ts:1:5: Identifier `a` has already been declared']);
    expect(scanModule('export const f = (x: number) => x;', 'helper.js', 'student').problems[0]).toMatch(/^syntax error at student\/helper\.js:1/);
  });
});
