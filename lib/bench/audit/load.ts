/**
 * Loads a mutant in this process the way the grader's child loads a submission: transpiled by the
 * grader's own transpileSubmission (lib/sandbox/transpile.ts), each file compiled as a function of
 * (exports, require, module), its imports resolved as the grader resolved them, the harness's
 * tensor and errors modules given for the specifiers the grader maps (as lib/sandbox/childMain.ts
 * does). Each load is a new module instance: nothing one load keeps reaches the next.
 */
import path from 'node:path';
import vm from 'node:vm';
import * as errors from '../../errors';
import type { LoadMessage } from '../../sandbox/protocol';
import * as tensor from '../../tensor';

const HARNESS: Record<string, unknown> = { tensor, errors };

export function loadSubmission({ files, resolutions, entry, label }: LoadMessage): Record<string, unknown> {
  const cache = new Map<string, { exports: Record<string, unknown> }>();
  const load = (file: string): Record<string, unknown> => {
    const cached = cache.get(file);
    if (cached) return cached.exports;
    const module = { exports: {} as Record<string, unknown> };
    cache.set(file, module);
    const requireFrom = (specifier: string): unknown => {
      const target = resolutions[file]?.[specifier];
      if (target === undefined) throw new Error(`${label}/${file} may not import "${specifier}"`);
      return target in HARNESS ? HARNESS[target] : load(target);
    };
    const filename = `${label}/${file}`;
    const run = vm.compileFunction(files[file], ['exports', 'require', 'module', '__filename', '__dirname'], { filename });
    run.call(module.exports, module.exports, requireFrom, module, filename, path.posix.dirname(filename));
    return module.exports;
  };
  return load(entry);
}
