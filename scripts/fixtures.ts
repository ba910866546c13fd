/**
 * npm run fixtures             regenerate fixtures/ (deterministic: same bytes every time)
 * npm run fixtures -- --check  verify the committed fixtures byte for byte, change nothing
 *
 * Of the assignment GRADER_ASSIGNMENT names (the project's own by default): its generator is
 * reference/fixtures/generate.ts, whose buildFixtures() makes every file in memory.
 */
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { fixturesDir } from '../lib/grading/assignment';
import { assignmentRoot } from '../lib/grading/loadAssignment';
import { checkFixtures, writeFixtures, type BuiltFile } from '../lib/model/fixtureFiles';
import type { Manifest } from '../lib/model/manifest';
import { displayPath } from '../lib/paths';

const flags = parseFlags(process.argv.slice(2), { check: 'boolean' }, 'npm run fixtures [-- --check]');
const root = assignmentRoot();
// Required, not imported: the generator is the chosen assignment's (scripts/runTs.js compiles it).
const { buildFixtures } = require(path.join(root, 'reference', 'fixtures', 'generate')) as { buildFixtures(): { files: BuiltFile[]; manifest: Manifest } };
const { files, manifest } = buildFixtures();
const count = Object.keys(manifest.fixtures).length;
const dir = fixturesDir({ root });
if (flags.check) {
  const problems = checkFixtures(dir, files);
  for (const line of problems) console.error(line);
  if (problems.length) {
    console.error(`fixtures --check: ${problems.length} problem(s); run \`npm run fixtures\` and commit the result`);
    process.exit(1);
  }
  console.log(`fixtures --check: ${count} fixtures, ${files.length} files identical to a fresh generation`);
} else {
  writeFixtures(dir, files);
  console.log(`fixtures: wrote ${count} fixtures (${files.length} files) to ${displayPath(dir)}/`);
}
