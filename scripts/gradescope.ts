/**
 * npm run gradescope -- --out FILE.zip [--node vX.Y.Z] [--late-policy P]: the Gradescope autograder bundle. Upload
 * FILE.zip as the assignment's autograder; setup.sh installs the Node release given by --node
 * (default: the Active LTS release, lib/gradescope/nodeRelease.ts) and the locked packages, run_autograder grades each
 * submission with the hidden cases. What goes in is decided in lib/gradescope/bundle.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { exitWithUsage, parseFlags } from '../lib/cli';
import { buildBundle, BundleError } from '../lib/gradescope/bundle';
import { ACTIVE_LTS_RELEASE, NODE_LTS_LINES, supportedRelease } from '../lib/gradescope/nodeRelease';
import { writeZip } from '../lib/gradescope/zip';
import { buildHandout, ReleaseError } from '../lib/release';
import { formatLatePolicy, LATE_POLICY_SYNTAX, parseLatePolicy } from '../lib/late/policy';
import { loadAssignment } from '../lib/grading/loadAssignment';

const USAGE = `npm run gradescope -- --out FILE.zip [--node vX.Y.Z] [--late-policy ${LATE_POLICY_SYNTAX}]`;
const flags = parseFlags(process.argv.slice(2), { out: 'string', node: 'string', 'late-policy': 'string' }, USAGE);

function fail(problem: string, code: number): never {
  console.error(`gradescope: ${problem}`);
  process.exit(code);
}

function usage(problem: string): never {
  return exitWithUsage(`gradescope: ${problem}`, USAGE);
}

if (!flags.out) usage('--out FILE.zip is required');
if (!flags.out.endsWith('.zip')) usage(`--out ${flags.out}: name the bundle FILE.zip`);
const nodeVersion = flags.node ?? ACTIVE_LTS_RELEASE;
const assignment = loadAssignment();
if (!supportedRelease(nodeVersion)) {
  usage(`--node ${nodeVersion} is not a release of a supported LTS line (${NODE_LTS_LINES.join(', ')}): pass e.g. --node ${ACTIVE_LTS_RELEASE}`);
}

// Gradescope gives each submission its due date (the student's extension included): due= may be left out.
const latePolicy = flags['late-policy'] === undefined ? undefined : parseLatePolicy(flags['late-policy'], false);
if (typeof latePolicy === 'string') usage(latePolicy);

try {
  const entries = buildBundle({ cases: assignment.cases, handout: buildHandout(assignment).files, nodeVersion, latePolicy });
  const zip = writeZip(entries);
  fs.mkdirSync(path.dirname(path.resolve(flags.out)), { recursive: true });
  fs.writeFileSync(path.resolve(flags.out), zip);
  const fixtures = entries.filter((e) => e.name.startsWith('fixtures/hidden/')).length;
  console.log(
    `gradescope: wrote ${flags.out} (${entries.length} files, ${(zip.length / 1024).toFixed(0)} KiB; ` +
      `hidden fixture files: ${fixtures}; setup.sh installs Node ${nodeVersion}` +
      `${latePolicy ? `; late policy ${formatLatePolicy(latePolicy)}, from each submission's time and due date` : ''})`,
  );
} catch (err) {
  if (!(err instanceof BundleError || err instanceof ReleaseError)) throw err;
  fail(err.message, 1);
}
