import { defineConfig } from 'vitest/config';

/**
 * The reports in a real browser (`npm run test:browser`): Debian's Chromium at /usr/bin/chromium,
 * driven by playwright-core. `npm run selftest` runs these too when that browser is installed.
 */
export default defineConfig({
  test: {
    include: ['selftest/browser/**/*.browser.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
