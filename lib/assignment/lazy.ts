/**
 * A module of an assignment loaded on first use, by whichever loader runs this code: vite's
 * import() under vitest (npm test and the self-tests), ts-node's require() under the scripts. So a
 * declaration can name its heavy parts (the diagnosis) without the student's loop paying to load
 * them before a test fails.
 */
import path from 'node:path';

export function lazyModule<T>(dir: string, file: string): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  const absolute = path.join(dir, file);
  return () =>
    (loaded ??= process.env.VITEST
      ? (import(`${absolute}.ts`) as Promise<T>)
      : Promise.resolve().then(() => require(absolute) as T));
}
