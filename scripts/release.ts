/**
 * npm run release -- --out DIR: write the student handout into DIR (new or empty): the stubs, the
 * graded suite, the visible fixtures and the grader, without reference/, hidden fixtures or
 * instructor tooling. What is shipped is the allow-list in lib/release.ts.
 */
import path from 'node:path';
import { exitWithUsage, parseFlags } from '../lib/cli';
import { buildHandout, ReleaseError, writeHandout } from '../lib/release';
import { loadAssignment } from '../lib/grading/loadAssignment';

const USAGE = 'npm run release -- --out DIR';
const flags = parseFlags(process.argv.slice(2), { out: 'string' }, USAGE);
const assignment = loadAssignment();
if (!flags.out) {
  exitWithUsage('release: --out DIR is required (a new or empty folder)', USAGE);
}

try {
  const handout = buildHandout(assignment);
  writeHandout(handout, path.resolve(flags.out), flags.out);
  console.log(
    `release: wrote ${handout.files.size} files to ${flags.out} (visible fixtures: ${handout.visibleFixtures}; hidden cases left out: ${handout.hiddenFixtures})`,
  );
} catch (err) {
  if (!(err instanceof ReleaseError)) throw err;
  console.error(`release: ${err.message}`);
  process.exit(1);
}
