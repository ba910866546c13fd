import { defineConfig } from 'vitest/config';

/**
 * The students' graded suite: `npm test`, filtered with `-t`, e.g. `-t scaled_dot_product`.
 * Threads start faster than forked processes, and the module cache keeps the transformed harness
 * between runs: with both, a run costs about what an empty vitest run does (docs/benchmarks.md).
 */
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'threads',
    experimental: { fsModuleCache: true },
  },
});
