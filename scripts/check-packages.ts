/**
 * setup-packages.sh's check, after `npm ci`: loads every package with native code the grader needs
 * (lib/gradescope/nativePackages.ts) and exits 1 naming each that cannot load, so that the image
 * build stops there instead of every submission failing at grading time.
 */
import { checkNativePackages } from '../lib/gradescope/nativePackages';

const checks = checkNativePackages();
for (const check of checks) {
  if (check.kind === 'loaded') {
    console.log(`check-packages: ${check.pkg.name} loads ${check.files.length > 0 ? check.files.join(', ') : 'no native file of its own'}`);
  } else {
    console.error(
      `check-packages: ${check.pkg.name} cannot load (${check.pkg.module}: ${check.error}); the grader needs it: ${check.pkg.usedFor}. ` +
        'Install the packages as the lock file has them, optional and dev ones included: `npm ci` with no --omit and NODE_ENV unset.',
    );
  }
}
if (checks.some((check) => check.kind === 'failed')) process.exit(1);
