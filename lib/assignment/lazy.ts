/**
 * A module of an assignment loaded on first use, by whichever loader runs this code: ts-node's
 * require() under the scripts, vite's import() under vitest (npm test and the self-tests). So a
 * declaration can name its heavy parts (the diagnosis) without the student's loop paying to load
 * them before a test fails.
 *
 * The loader is told by what is registered, not by the environment: a script a self-test spawns
 * inherits VITEST from it but runs under ts-node, where import() would meet Node's own loader.
 */
import path from 'node:path';

/** ts-node's require, when ts-node has registered itself in this process (it marks the process so). */
function tsRequire(): NodeJS.Require | undefined {
  const registered = (process as unknown as Record<symbol, unknown>)[Symbol.for('ts-node.register.instance')];
  return registered && typeof require === 'function' ? require : undefined;
}

export function lazyModule<T>(dir: string, file: string): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  const absolute = path.join(dir, file);
  return () => {
    const load = tsRequire();
    return (loaded ??= load ? Promise.resolve().then(() => load(absolute) as T) : (import(`${absolute}.ts`) as Promise<T>));
  };
}
