/**
 * The Gradescope autograder bundle: the student handout (lib/release.ts decides what of the
 * project ships, so a new instructor file stays out of both), turned into a grader: the hidden
 * fixtures and the full manifest back in, the stubs, the student README and workflow out, the autograder
 * entry and Gradescope's two launchers added. Never reference/, selftest/, .ci/ or docs/.
 *
 * The caller passes the handout's files in: lib/ ships to students, lib/release.ts does not, so
 * nothing shipped may import it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mistakeFile, sha256, type Manifest } from '../model/manifest';
import { PROJECT_ROOT } from '../paths';
import type { Assignment } from '../grading/assignment';
import type { GradedCase } from '../assignment/cases';
import { AUTOGRADER_OPTIONS } from './autograde';
import { autograderErrorResults, DETAILS_LIMIT } from './errorResults';
import { NATIVE_PACKAGES } from './nativePackages';
import { formatLatePolicy, type LatePolicy } from '../late/policy';
import { FALLBACK_RESULTS, runAutograderSh, SETUP_PACKAGES, setupPackagesSh, setupSh } from './launchers';
import { ACTIVE_LTS_RELEASE, NODE_LTS_LINES, supportedRelease } from './nodeRelease';
import type { ZipEntry } from './zip';

/** The bundle cannot be built; the message says what to do. */
export class BundleError extends Error {
  override name = 'BundleError';
}

/** The autograder's own files, added even if the handout leaves them out. */
const AUTOGRADER_FILES = [
  'scripts/autograde.ts', 'scripts/autograde-failed.js', 'lib/gradescope/autograde.ts', 'lib/gradescope/errorResults.ts',
  'scripts/check-packages.ts', 'lib/gradescope/nativePackages.ts', 'scripts/typecheck-snapshot.ts', 'scripts/runTs.js',
];
// The student's `npm run typecheck` (the autograder checks types through lib/typecheck/ itself).
const DROPPED = [/^student\//, /^README\.md$/, /^\.github\//, /^docs\//, /^scripts\/typecheck\.ts$/];
const EXECUTABLE = new Set(['setup.sh', SETUP_PACKAGES, 'run_autograder']);

export interface BundleOptions {
  /** buildHandout().files: project-relative path → contents. */
  handout: ReadonlyMap<string, Buffer>;
  /** The Node release setup.sh installs: one of a supported LTS line, e.g. ACTIVE_LTS_RELEASE. */
  nodeVersion: string;
  /** A late policy (`--late-policy`, lib/late/policy.ts) the autograder applies from each submission's metadata. */
  latePolicy?: LatePolicy;
  /**
   * The assignment: its folder, whose fixtures (hidden ones too) the bundle holds, and its every
   * case, hidden ones included: the points at stake in an "Autograder error" result.
   */
  assignment: Pick<Assignment, 'root' | 'cases'>;
}

function readFile(root: string, file: string): Buffer {
  try {
    return fs.readFileSync(path.join(root, file));
  } catch {
    throw new BundleError(`${file} is missing and the autograder needs it: restore it with \`git checkout -- ${file}\``);
  }
}

/**
 * Every fixture file of the assignment's cases, hidden ones included (a part that is off brings
 * none), each checked against the manifest now rather than at each submission, and the manifest of
 * those fixtures.
 */
function allFixtures(root: string, cases: readonly GradedCase[], files: Map<string, Buffer>): void {
  const manifest = JSON.parse(readFile(root, 'fixtures/manifest.json').toString('utf8')) as Manifest;
  const used = new Set(cases.map((c) => c.fixture));
  const kept = Object.entries(manifest.fixtures).filter(([key]) => used.has(key));
  // In the generator's layout (reference/fixtures/generate.ts), as the handout's own manifest is written.
  files.set('fixtures/manifest.json', Buffer.from(`${JSON.stringify({ ...manifest, fixtures: Object.fromEntries(kept) }, null, 2)}\n`));
  for (const [key, entry] of kept) {
    // The known mistakes' outputs too: the grader names a failing case's mistake from them.
    const listed = [
      ...Object.entries(entry.files),
      ...Object.entries(entry.mistakes ?? {}).map(([id, fileEntry]) => [mistakeFile(id), fileEntry] as const),
    ];
    for (const [name, fileEntry] of listed) {
      const file = `fixtures/${key}/${name}`;
      const bytes = readFile(root, file);
      if (sha256(bytes) !== fileEntry.sha256) {
        throw new BundleError(`${file} does not match fixtures/manifest.json: restore it with \`git checkout fixtures\` or \`npm run fixtures\``);
      }
      files.set(file, bytes);
    }
  }
}

/** Every package with native code the grader needs is one the bundle's package.json installs. */
function nativePackagesListed(files: ReadonlyMap<string, Buffer>): void {
  const pkg = JSON.parse(files.get('package.json')?.toString('utf8') ?? '{}') as { dependencies?: object; devDependencies?: object };
  for (const { name } of NATIVE_PACKAGES) {
    if (!(name in (pkg.dependencies ?? {})) && !(name in (pkg.devDependencies ?? {}))) {
      throw new BundleError(
        `the bundle's package.json does not list ${name}, whose native code the grader loads (lib/gradescope/nativePackages.ts): ` +
          'add it to the shipped dependencies in lib/release.ts',
      );
    }
  }
}

export function buildBundle({ handout, nodeVersion, latePolicy, assignment }: BundleOptions): ZipEntry[] {
  if (!supportedRelease(nodeVersion)) {
    throw new BundleError(`Node ${nodeVersion} is not a release of a supported LTS line (${NODE_LTS_LINES.join(', ')}), such as ${ACTIVE_LTS_RELEASE}`);
  }
  const files = new Map([...handout].filter(([file]) => !DROPPED.some((re) => re.test(file))));
  allFixtures(assignment.root, assignment.cases, files);
  for (const file of AUTOGRADER_FILES) files.set(file, readFile(PROJECT_ROOT, file));
  if (latePolicy) files.set(AUTOGRADER_OPTIONS, Buffer.from(`${JSON.stringify({ late_policy: formatLatePolicy(latePolicy) }, null, 2)}\n`));
  nativePackagesListed(files);
  files.set('setup.sh', Buffer.from(setupSh(nodeVersion)));
  files.set(SETUP_PACKAGES, Buffer.from(setupPackagesSh()));
  files.set('run_autograder', Buffer.from(runAutograderSh(DETAILS_LIMIT)));
  const maxScore = assignment.cases.reduce((sum, c) => sum + c.points, 0);
  const fallback = autograderErrorResults(
    'run_autograder: Node itself could not run (neither scripts/autograde.ts nor scripts/autograde-failed.js started): ' +
      'setup.sh installs it into /usr/local; see whether it did in the image build log.',
    maxScore,
  );
  files.set(FALLBACK_RESULTS, Buffer.from(`${JSON.stringify(fallback, null, 2)}\n`));
  return [...files.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, data]) => ({ name, data, mode: EXECUTABLE.has(name) ? 0o755 : 0o644 }));
}
