import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { buildChildRuntime, COMPILER_OPTIONS } from './build';

describe('the child runtime build', () => {
  it("writes TypeScript's enums by value: the options are the ones named", () => {
    expect(COMPILER_OPTIONS.module).toBe(ts.ModuleKind.CommonJS);
    expect(COMPILER_OPTIONS.target).toBe(ts.ScriptTarget.ES2022);
  });

  it('keeps the closure it found, and the runtime named by those files holds each of them and the three entries', () => {
    const runtime = buildChildRuntime();
    const files = JSON.parse(fs.readFileSync(path.join(path.dirname(runtime.root), 'closure.json'), 'utf8')) as string[];
    expect(files).toEqual(expect.arrayContaining(['lib/sandbox/childMain.ts', 'lib/sandbox/transpileWorker.ts', 'lib/sandbox/launcherMain.ts']));
    for (const file of files) expect(fs.existsSync(path.join(runtime.root, file.replace(/\.ts$/, '.js'))), file).toBe(true);
    for (const file of [runtime.entry, runtime.transpiler, runtime.launcher]) expect(fs.existsSync(file), file).toBe(true);
  });
});
