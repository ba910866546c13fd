import vm from 'node:vm';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { codePlace } from '../text/place';
import { mapStack } from './sourceMap';
import { transpileSubmission } from './transpile';

/** Runs the transpiled entry as the child does (vm, `<label>/<file>` as each file's name) and returns what its `f` threw. */
function thrownBy(files: Record<string, string>, label: string): string {
  const prepared = transpileSubmission({ files, entry: 'index.ts', label });
  expect(prepared.loadErrors).toEqual([]);
  const load = (file: string): Record<string, unknown> => {
    const module = { exports: {} as Record<string, unknown> };
    const run = vm.compileFunction(prepared.load.files[file], ['exports', 'require', 'module'], { filename: `${label}/${file}` });
    run(module.exports, (specifier: string) => load(prepared.load.resolutions[file][specifier]), module);
    return module.exports;
  };
  try {
    (load('index.ts').f as (n: number) => number)(1);
  } catch (err) {
    return mapStack((err as Error).stack!, label, prepared.lineMaps);
  }
  throw new Error('f did not throw');
}

/** Types, type-only imports and comments: what transpiling drops or moves, so that lines and columns shift. */
const PREAMBLES = [
  '',
  "import type { Shape } from './shape';\n",
  'interface Weights {\n  q: number;\n  k: number;\n}\n\n',
  '/** A long comment\n * over lines\n */\ntype Pair = [number, number];\nenum Kind { A, B }\n',
  'declare const seed: number;\nexport type Row = { values: number[] };\n\n\n',
];

/** Names a submission's folder may have, hostile ones included: each must be found and shown as messages show names. */
const LABELS = ['student', 'kemal-liskov', 'grace "<b>" & #1', 'a.b+c(d)[e]$', 'zoë o\'neil', '..x'];

describe('mapStack: a stack frame in the source as written, named as every message names a place', () => {
  it('random layouts: the throw is at its line and column in the .ts file, in the entry and in a nested helper', () => {
    const random = seedrandom('source-map');
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
    for (let draw = 0; draw < 40; draw++) {
      const label = pick(LABELS);
      const indent = ' '.repeat(2 + Math.floor(random() * 6));
      const guard = pick(['if (n > 0) ', 'if (n !== 0) { ', '']);
      const helperPreamble = pick(PREAMBLES);
      const helper = `${helperPreamble}export function g(n: number): number {\n${indent}${guard}throw new RangeError('deep');${guard.endsWith('{ ') ? ' }' : ''}\n  return n;\n}\n`;
      const entryPreamble = pick(PREAMBLES);
      const call = `${' '.repeat(2 + Math.floor(random() * 4))}return g(n) + 1;`;
      const entry = `${entryPreamble}import { g } from './lib/help';\nexport function f(n: number): number {\n${call}\n}\n`;
      const stack = thrownBy({ 'index.ts': entry, 'lib/help.ts': helper, 'shape.ts': 'export interface Shape { dims: number[] }\n', 'lib/shape.ts': 'export interface Shape { dims: number[] }\n' }, label);
      const lineOf = (code: string, text: string) => code.slice(0, code.indexOf(text)).split('\n').length;
      const columnOf = (code: string, text: string) => code.split('\n')[lineOf(code, text) - 1].indexOf(text) + 1;
      const thrown = codePlace(label, 'lib/help.ts', lineOf(helper, 'new RangeError'), columnOf(helper, 'new RangeError'));
      // A call is placed at its callee or its "(": V8 places TypeScript's `(0, help_1.g)(n)` at the latter.
      const callers = ['g(n)', '(n)'].map((at) => codePlace(label, 'index.ts', lineOf(entry, 'g(n) + 1'), columnOf(entry, at)));
      const frames = stack.split('\n').filter((line) => line.startsWith('    at ')).slice(0, 2).map((line) => line.replace(/^    at (?:Object\.)?/, ''));
      expect(frames[0], `${label}\n${helper}\n${entry}`).toBe(`g (${thrown})`);
      expect(callers.map((caller) => `f (${caller})`), `${label}\n${helper}\n${entry}`).toContain(frames[1]);
    }
  });

  it('touches nothing but the positions of the loaded files under this folder', () => {
    const maps = { 'index.ts': [[[0, 0, 0]]] };
    const text = 'Error: x\n    at f (xstudent/index.ts:1:1)\n    at student/other.ts:1:1\n    at g (student/index.ts:1:5)';
    expect(mapStack(text, 'student', maps)).toBe('Error: x\n    at f (xstudent/index.ts:1:1)\n    at student/other.ts:1:1\n    at g (student/index.ts:1:1)');
  });

  it('in linear time on a long line of a folder\'s name repeated', () => {
    const long = `Error: ${'student/'.repeat(40_000)}`;
    // Quadratic matching took minutes on such a line; linear takes milliseconds. The bound is loose on purpose.
    const started = process.hrtime.bigint();
    expect(mapStack(long, 'student', { 'index.ts': [] })).toBe(long);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5000);
  });
});
