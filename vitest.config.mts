import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';

const lib = fileURLToPath(new URL('./lib/', import.meta.url));
/** As vite writes module ids: forward slashes on every system. */
const libId = lib.replace(/\\/g, '/');

/**
 * Imports of the submission resolve as the grader resolves them (lib/sandbox/loadCheck.ts
 * resolveImport): the same candidates in the same order, `.ts` before `.js` and a file before a
 * folder's index, whatever extension the import was written with (vite alone takes a helpers.js
 * beside helpers.ts, a compiled copy, say). The diagnosis probes an instance of the submission of
 * its own (`index.ts?probe`, adapters/index.ts), as the grader probes one in the child that graded: every file
 * that instance imports from the folder is a second instance too. The harness's modules (the
 * tensor module, mapped by the alias below) stay shared. selftest/loadShapes.test.ts holds both
 * paths to one verdict on each shape of folder.
 */
function graderResolution(): Plugin {
  const harness = (id: string) => id.startsWith(libId) || id.includes('/node_modules/');
  return {
    name: 'grader-resolution',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (!importer || !(source.startsWith('./') || source.startsWith('../'))) return null;
      // `?probe`, or `?probe=N` for the fresh instances that look for the call that left state (lib/suite/submission.ts).
      const probe = /\?probe(=\d+)?$/.exec(importer)?.[0];
      const from = probe ? importer.slice(0, -probe.length) : importer;
      if (harness(from)) return null;
      const bare = source.replace(/\.(js|ts)$/, '');
      for (const candidate of [`${bare}.ts`, `${bare}.js`, `${bare}/index.ts`, `${bare}/index.js`]) {
        const resolved = await this.resolve(candidate, from, { skipSelf: true });
        if (!resolved || resolved.external) continue;
        return probe && !harness(resolved.id) ? `${resolved.id}${probe}` : resolved;
      }
      return null;
    },
  };
}

/**
 * The students' graded suite: `npm test`, filtered with `-t`, e.g. `-t scaled_dot_product`.
 * Threads start faster than forked processes, and the module cache keeps the transformed harness
 * between runs: with both, a run costs about what an empty vitest run does (README, Speed).
 * GRADER_ASSIGNMENT names another assignment's folder, as for `npm run grade`
 * (lib/grading/loadAssignment.ts): its tests/ are the suite.
 */
export default defineConfig({
  plugins: [graderResolution()],
  // Vite's cache stays in the project's node_modules: the assignment's folder gains none.
  ...(process.env.GRADER_ASSIGNMENT && { root: path.resolve(process.env.GRADER_ASSIGNMENT), cacheDir: fileURLToPath(new URL('./node_modules/.vite', import.meta.url)) }),
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'threads',
    // Student calls stop at the grader's 10 s limit (lib/grading/withinLimit.ts), in the grader's
    // words; vitest's own timeout, which cannot stop a loop, must not say it first.
    testTimeout: 30_000,
    experimental: { fsModuleCache: true },
  },
  resolve: {
    // The grader's order for an import without an extension (lib/sandbox/loadCheck.ts
    // resolveImport): a .ts before a .js of the same name, and nothing else (no .mjs, .json…).
    // Every import of the submission was checked by the grader's rule before vite sees it
    // (lib/suite/load.ts), so vite loads the files the grader loads.
    extensions: ['.ts', '.js'],
    // A submission may import the tensor module from wherever its folder sits (the grader maps
    // the same specifiers): ATTENTION_SUBMISSION=any/folder npm test works like the grader.
    alias: [{ find: /^(?:\.{1,2}\/)+(?:[\w.-]+\/)*lib\/(tensor|errors)(?:\.ts|\.js)?$/, replacement: `${lib}$1.ts` }],
  },
});
