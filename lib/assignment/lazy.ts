/**
 * A module of an assignment loaded on first use, by whichever loader runs this code: require()
 * under the scripts (scripts/runTs.js, or ts-node), vite's import() under vitest (npm test and the self-tests). So a
 * declaration can name its heavy parts (the diagnosis) without the student's loop paying to load
 * them before a test fails.
 *
 * The loader is told by what is registered, not by the environment: a script a self-test spawns
 * inherits VITEST from it but runs under scripts/runTs.js, where import() would meet Node's own loader.
 */
import path from 'node:path';

/** Each loader that makes require() load `.ts` files marks the process so. */
const TS_LOADERS = [Symbol.for('attention.runTs'), Symbol.for('ts-node.register.instance')];

/** require, when a loader of `.ts` files has registered itself in this process. */
function tsRequire(): NodeJS.Require | undefined {
  const marks = process as unknown as Record<symbol, unknown>;
  return TS_LOADERS.some((mark) => marks[mark]) && typeof require === 'function' ? require : undefined;
}

export function lazyModule<T>(dir: string, file: string): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  const absolute = path.join(dir, file);
  return () => {
    const load = tsRequire();
    return (loaded ??= load ? Promise.resolve().then(() => load(absolute) as T) : (import(`${absolute}.ts`) as Promise<T>));
  };
}
