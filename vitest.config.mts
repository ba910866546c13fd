import { defineConfig } from 'vitest/config';

/** The students' graded suite: `npm test`, filtered with `-t`, e.g. `-t scaled_dot_product`. */
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
  },
});
