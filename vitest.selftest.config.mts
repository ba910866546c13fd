import { defineConfig } from 'vitest/config';

/** The harness's own tests (`npm run selftest`), kept apart from the students' graded suite. */
export default defineConfig({
  test: {
    include: ['lib/**/*.test.ts', 'selftest/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
