import fs from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { buildChildRuntime, COMPILER_OPTIONS } from './build';

describe('the child runtime build', () => {
  it("writes TypeScript's enums by value: the options are the ones named", () => {
    expect(COMPILER_OPTIONS.module).toBe(ts.ModuleKind.CommonJS);
    expect(COMPILER_OPTIONS.target).toBe(ts.ScriptTarget.ES2022);
  });

  it('reuses a built runtime without loading TypeScript, and the runtime holds the entries', () => {
    const runtime = buildChildRuntime();
    for (const file of [runtime.entry, runtime.transpiler, runtime.launcher]) expect(fs.existsSync(file), file).toBe(true);
  });
});
