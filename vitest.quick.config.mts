import { defineConfig } from 'vitest/config';

/**
 * The quick tier for the edit loop (`npm run selftest -- --quick`, a minute or so at rest on 2
 * cores: docs/benchmarks.md): lib's unit tests but the type check's, then the sample of selftest/quick.test.ts (the
 * reference to full marks, a few catalogue mistakes through both paths, a few attacks in this
 * machine's setting). The whole suite (vitest.selftest.config.mts) holds every guarantee in full.
 */
export default defineConfig({
  test: {
    include: ['lib/**/*.test.ts', 'selftest/quick.test.ts'],
    // The type check's own tests start TypeScript's checker again and again (about a minute of CPU):
    // the whole run holds them.
    exclude: ['**/node_modules/**', 'selftest/assignments/**', 'lib/typecheck/**'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    maxWorkers: 3,
  },
});
