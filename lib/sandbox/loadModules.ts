/**
 * A transpiled submission's modules, loaded as the grader's child loads them (childMain.ts): each
 * file compiled as a function of (exports, require, module), its imports resolved as the grader
 * resolved them up front, `harness` given for the harness's modules. The diagnosis audit loads
 * mutants in process with the same code (selftest/audit/load.ts).
 */
import path from 'node:path';
import vm from 'node:vm';
import type { LoadMessage } from './protocol';
import { HARNESS_MODULES } from './protocol';

export function loadModules({ files, resolutions, entry, label }: Pick<LoadMessage, 'files' | 'resolutions' | 'entry' | 'label'>, harness: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const cache = new Map<string, { exports: Record<string, unknown> }>();
  const load = (file: string): Record<string, unknown> => {
    const cached = cache.get(file);
    if (cached) return cached.exports;
    const module = { exports: {} as Record<string, unknown> };
    cache.set(file, module);
    const requireFrom = (specifier: string): unknown => {
      const target = resolutions[file]?.[specifier];
      if (target === undefined) {
        throw new Error(`${label}/${file} may not import "${specifier}": a submission may import only its own files and the tensor module (${HARNESS_MODULES.tensor})`);
      }
      return target in harness ? harness[target] : load(target);
    };
    const filename = `${label}/${file}`;
    const run = vm.compileFunction(files[file], ['exports', 'require', 'module', '__filename', '__dirname'], { filename });
    run.call(module.exports, module.exports, requireFrom, module, filename, path.posix.dirname(filename));
    return module.exports;
  };
  return load(entry);
}
