/**
 * npm run fixtures             regenerate fixtures/ (deterministic: same bytes every time)
 * npm run fixtures -- --check  verify the committed fixtures byte for byte, change nothing
 */
import { FIXTURES_DIR } from '../lib/paths';
import { buildFixtures, checkFixtures, writeFixtures } from '../reference/fixtures/generate';
import { parseFlags } from '../lib/cli';

const flags = parseFlags(process.argv.slice(2), { check: 'boolean' }, 'npm run fixtures [-- --check]');
const { files, manifest } = buildFixtures();
const count = Object.keys(manifest.fixtures).length;
if (flags.check) {
  const problems = checkFixtures(FIXTURES_DIR, files);
  for (const line of problems) console.error(line);
  if (problems.length) {
    console.error(`fixtures --check: ${problems.length} problem(s); run \`npm run fixtures\` and commit the result`);
    process.exit(1);
  }
  console.log(`fixtures --check: ${count} fixtures, ${files.length} files identical to a fresh generation`);
} else {
  writeFixtures(FIXTURES_DIR, files);
  console.log(`fixtures: wrote ${count} fixtures (${files.length} files) to fixtures/`);
}
