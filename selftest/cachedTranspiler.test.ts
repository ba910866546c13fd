import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../lib/paths';

// The transpiler ts-node uses for every script (tsconfig.json "ts-node"."transpiler").
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { create } = require('../scripts/cachedTranspiler.js') as {
  create(options: { service: { config: { options: ts.CompilerOptions } }; nodeModuleEmitKind?: string }): {
    transpile(code: string, options: { fileName: string }): { outputText: string; diagnostics?: readonly ts.Diagnostic[] };
  };
};

const compilerOptions = ts.parseJsonConfigFileContent(ts.readConfigFile(path.join(PROJECT_ROOT, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, PROJECT_ROOT).options;
const cacheFiles = () => {
  const root = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ts-node-transpiled');
  return fs.existsSync(root) ? fs.readdirSync(root, { recursive: true }).map(String).filter((f) => f.endsWith('.json')) : [];
};

describe('the caching ts-node transpiler', () => {
  const transpiler = create({ service: { config: { options: compilerOptions } }, nodeModuleEmitKind: 'nodecjs' });
  const fileName = path.join(PROJECT_ROOT, 'lib', 'cache-probe.ts');

  it('emits what TypeScript emits, and the second time reads it from the cache', () => {
    // A source no other run has seen, so the first call must transpile it.
    const code = `export const probe: string = '${crypto.randomUUID()}';\nexport class A { constructor(private readonly x: number) {} get y() { return this.x; } }\n`;
    const before = new Set(cacheFiles());
    const first = transpiler.transpile(code, { fileName });
    const cache = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ts-node-transpiled');
    // Other processes may add entries meanwhile: this source's entry is the one holding its id.
    const added = cacheFiles().filter((f) => !before.has(f) && fs.readFileSync(path.join(cache, f), 'utf8').includes(code.slice(30, 66)));
    expect(added).toHaveLength(1);
    const expected = ts.transpileModule(code, { fileName, compilerOptions: { ...compilerOptions, module: ts.ModuleKind.CommonJS } }).outputText;
    expect(first.outputText.replace(/\n\/\/# sourceMappingURL=.*$/s, '')).toBe(expected.replace(/\n\/\/# sourceMappingURL=.*$/s, ''));
    expect(first.outputText).toContain('exports.probe');
    const second = transpiler.transpile(code, { fileName });
    expect(second.outputText).toBe(first.outputText);
    fs.rmSync(path.join(cache, added[0]));
  });

  it('keeps no output that has a syntax error: it is reported on every start', () => {
    const code = `export const broken = [1, 2;\n// ${crypto.randomUUID()}\n`;
    const result = transpiler.transpile(code, { fileName });
    expect(result.diagnostics?.length).toBeGreaterThan(0);
    const cache = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ts-node-transpiled');
    expect(cacheFiles().filter((f) => fs.readFileSync(path.join(cache, f), 'utf8').includes(code.slice(-37, -1)))).toEqual([]);
  });
});
