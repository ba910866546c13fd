import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, RUN_TS } from '../lib/paths';

// scripts/runTs.js, what every script of the project runs under (package.json, lib/paths.ts RUN_TS).
const CACHE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'ts-run');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'run-ts-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** The cache's entries holding `token` (a source no other run has seen). */
const entriesWith = (token: string) =>
  (fs.existsSync(CACHE) ? (fs.readdirSync(CACHE, { recursive: true }) as string[]) : [])
    .filter((f) => f.endsWith('.js') && fs.readFileSync(path.join(CACHE, f), 'utf8').includes(token))
    .map((f) => path.join(CACHE, f));

const runScript = (file: string, args: string[] = []) => spawnSync(process.execPath, [RUN_TS, file, ...args], { cwd: PROJECT_ROOT, encoding: 'utf8' });

describe('scripts/runTs.js, the scripts\' TypeScript loader', () => {
  it('runs a script as `node script.ts` would, emits what TypeScript emits, and a second start reads it from the cache without loading TypeScript', () => {
    const token = crypto.randomUUID();
    const file = path.join(work, 'probe.ts');
    // An enum and a parameter property (which type stripping alone cannot run), an import of a project module, a dynamic import kept.
    fs.writeFileSync(file, [
      `import { Tensor } from '${path.join(PROJECT_ROOT, 'lib', 'tensor')}';`,
      `enum Kind { A = 3 }`,
      `class Box { constructor(private readonly x: number) {} get y(): number { return this.x; } }`,
      `const id: string = '${token}';`,
      `const lazy = () => import('node:path');`,
      `console.log(JSON.stringify({ id, kind: Kind.A, y: new Box(4).y, tensor: typeof Tensor, lazy: typeof lazy, argv: process.argv.slice(1), main: require.main === module,`,
      `  typescript: Object.keys(require.cache).some((f) => f.includes('/node_modules/typescript/')) }));`,
      '',
    ].join('\n'));
    const first = runScript(file, ['--flag', 'value']);
    expect(first.status, first.stderr).toBe(0);
    const said = JSON.parse(first.stdout) as Record<string, unknown>;
    expect(said).toMatchObject({ id: token, kind: 3, y: 4, tensor: 'function', lazy: 'function', argv: [file, '--flag', 'value'], main: true });
    const kept = entriesWith(token);
    expect(kept).toHaveLength(1);
    const { options } = ts.parseJsonConfigFileContent(ts.readConfigFile(path.join(PROJECT_ROOT, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, PROJECT_ROOT);
    const emitted = ts.transpileModule(fs.readFileSync(file, 'utf8'), { fileName: file, compilerOptions: { ...options, noEmit: false } }).outputText;
    const withoutMap = (js: string) => js.replace(/\/\/# sourceMappingURL=.*$/s, '').trimEnd();
    expect(withoutMap(fs.readFileSync(kept[0], 'utf8'))).toBe(withoutMap(emitted));
    // A CommonJS module whose dynamic import stays one (an ES module package loads as such).
    expect(emitted).toContain('exports');
    expect(emitted).toContain("import('node:path')");

    const second = runScript(file, ['--flag', 'value']);
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ ...said, typescript: false });
    expect(entriesWith(token)).toEqual(kept);
    for (const entry of kept) fs.rmSync(entry);
  });

  it('an edited file is transpiled again, never served stale', () => {
    const file = path.join(work, 'edited.ts');
    const tokens = [crypto.randomUUID(), crypto.randomUUID()];
    for (const token of tokens) {
      fs.writeFileSync(file, `const said: string = '${token}';\nconsole.log(said);\n`);
      const run = runScript(file);
      expect(run.stdout.trim(), run.stderr).toBe(token);
    }
    for (const entry of tokens.flatMap(entriesWith)) fs.rmSync(entry);
  });

  it('a stack trace names the .ts file\'s own lines', () => {
    const file = path.join(work, 'throws.ts');
    fs.writeFileSync(file, `interface Shape { rows: number }\n\nconst shape: Shape = { rows: 2 };\n\nfunction fail(): never {\n  throw new Error('boom ' + shape.rows);\n}\nfail();\n// ${crypto.randomUUID()}\n`);
    const run = runScript(file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`at fail (${file}:6:9)`);
  });

  it('a syntax error names the file and line, on every start: nothing is kept for it', () => {
    const token = crypto.randomUUID();
    const file = path.join(work, 'broken.ts');
    fs.writeFileSync(file, `// ${token}\nconst broken = [1, 2;\n`);
    for (let start = 0; start < 2; start++) {
      const run = runScript(file);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`TypeScript could not transpile ${file}:\n${file}:2:21: ',' expected.`);
    }
    expect(entriesWith(token)).toEqual([]);
  });

  it('a copy of the project elsewhere (a handout, a bundle) with the same compiler options reads the same entries; other options make their own', () => {
    const token = crypto.randomUUID();
    const probe = `const id: string = '${token}';\nconsole.log(JSON.stringify({ id, typescript: Object.keys(require.cache).some((f) => f.includes('/node_modules/typescript/')) }));\n`;
    const copy = path.join(work, 'copy');
    fs.mkdirSync(path.join(copy, 'scripts'), { recursive: true });
    fs.mkdirSync(path.join(copy, 'elsewhere'));
    fs.mkdirSync(path.join(work, 'here'));
    fs.copyFileSync(RUN_TS, path.join(copy, 'scripts', 'runTs.js'));
    fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(copy, 'node_modules'));
    // The handout's and the bundle's tsconfig.json: the include line rewritten, comments and all.
    const config = fs.readFileSync(path.join(PROJECT_ROOT, 'tsconfig.json'), 'utf8');
    fs.writeFileSync(path.join(copy, 'tsconfig.json'), `// a copy\n${config.replace(/"include": \[[^\]]*\]/, '"include": ["scripts", "elsewhere",]')}`);
    const here = path.join(work, 'here', 'probe.ts');
    const elsewhere = path.join(copy, 'elsewhere', 'probe.ts');
    fs.writeFileSync(here, probe);
    fs.writeFileSync(elsewhere, probe);
    const run = (loader: string, file: string) => {
      const ran = spawnSync(process.execPath, [loader, file], { cwd: path.dirname(file), encoding: 'utf8' });
      expect(ran.status, ran.stderr).toBe(0);
      return JSON.parse(ran.stdout) as { id: string; typescript: boolean };
    };
    expect(run(RUN_TS, here)).toEqual({ id: token, typescript: true });
    expect(run(path.join(copy, 'scripts', 'runTs.js'), elsewhere)).toEqual({ id: token, typescript: false });
    expect(entriesWith(token)).toHaveLength(1);
    // Another target emits other code: its own entry, TypeScript loaded to make it.
    fs.writeFileSync(path.join(copy, 'tsconfig.json'), config.replace('"target": "ES2022"', '"target": "ES2020"'));
    expect(run(path.join(copy, 'scripts', 'runTs.js'), elsewhere)).toEqual({ id: token, typescript: true });
    expect(entriesWith(token)).toHaveLength(2);
    for (const entry of entriesWith(token)) fs.rmSync(entry);
  });

  it('`-r` registers it alone, for a process that only loads .ts files', () => {
    const run = spawnSync(process.execPath, ['-r', RUN_TS, '-e', `console.log(typeof require('./lib/tensor').Tensor)`], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(run.stdout.trim(), run.stderr).toBe('function');
  });
});
