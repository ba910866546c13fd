/**
 * The shell files Gradescope runs, as text for the bundle: setup.sh with its install step
 * (setup-packages.sh), and run_autograder. They only launch: installing is apt, curl and npm, the
 * check of the packages is scripts/check-packages.ts; grading and every decision about
 * results.json are scripts/autograde.ts (scripts/autograde-failed.js when Node could not start it).
 *
 * Gradescope (Autograder Specifications) unpacks the bundle into /autograder/source, runs
 * setup.sh there once while building the image (the only time the network is up), copies
 * run_autograder to /autograder/run_autograder and runs it once per submission, as root, with the
 * submission in /autograder/submission and results expected in /autograder/results/results.json.
 */

/** The "Autograder error" result run_autograder starts from when scripts/autograde.ts wrote none, and copies as it is when Node cannot run at all. */
export const FALLBACK_RESULTS = 'autograder-error.json';

/** setup.sh's install step, a script of its own so that it can be run alone (the self-test runs it offline). */
export const SETUP_PACKAGES = 'setup-packages.sh';

/**
 * Node from the official tarball, checked against the sha256 that nodejs.org publishes for that
 * release (its SHASUMS256.txt, over HTTPS), then the packages (setupPackagesSh). The hash is looked
 * up rather than written in: the release is a parameter (--node), and a hash this project had not
 * read from nodejs.org itself would be a guess. Gradescope's images are x86-64 Ubuntu.
 */
export function setupSh(nodeVersion: string): string {
  return `#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image.
set -euo pipefail
NODE_VERSION=${nodeVersion}
cd "$(dirname "$0")"
export DEBIAN_FRONTEND=noninteractive
apt-get update
# util-linux brings setpriv, unshare and prlimit, perl-base the perl that installs the syscall
# filter: the grader contains student code with them.
apt-get install -y --no-install-recommends ca-certificates curl xz-utils util-linux perl-base
tarball="node-\${NODE_VERSION}-linux-x64.tar.xz"
curl -fsSLO "https://nodejs.org/dist/\${NODE_VERSION}/\${tarball}"
curl -fsSL "https://nodejs.org/dist/\${NODE_VERSION}/SHASUMS256.txt" | grep " \${tarball}\$" | sha256sum -c -
tar -xJf "\${tarball}" -C /usr/local --strip-components=1 --no-same-owner
rm "\${tarball}"
node --version
bash ${SETUP_PACKAGES}
`;
}

/**
 * The locked packages, optional ones included: the grader loads native code that comes as
 * optional platform packages (nativePackages.ts), so `--omit=optional` would leave it out. Then
 * the check that each of those loads, which fails the image build naming the package.
 */
export function setupPackagesSh(): string {
  return `#!/usr/bin/env bash
# setup.sh's install step, once Node is on PATH: the locked packages, a check that every package
# with native code the grader needs loads (lib/gradescope/nativePackages.ts), then the type checks'
# snapshot.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
node scripts/runTs.js scripts/check-packages.ts
# The snapshot each submission's type check starts from (lib/typecheck/snapshot.ts): without it the
# checks are slower, not different, so it never fails the image.
node scripts/runTs.js scripts/typecheck-snapshot.ts || echo "setup-packages.sh: no type check snapshot (the error is above); the checks run without it"
`;
}

/**
 * AUTOGRADER_ROOT stands in for /autograder when the bundle is tried anywhere else. What
 * scripts/autograde.ts prints on stderr is kept: when it wrote no results.json, that is the cause
 * instructors are shown.
 */
export function runAutograderSh(detailsLimit: number): string {
  return `#!/usr/bin/env bash
# Gradescope runs this once per submission. scripts/autograde.ts grades $ROOT/submission and writes
# $ROOT/results/results.json whatever happens. When Node could not start it, scripts/autograde-failed.js
# writes the "Autograder error" result with what Node printed; when Node cannot run at all, the
# bundled copy of that result stands in.
set -uo pipefail
ROOT="\${AUTOGRADER_ROOT:-/autograder}"
mkdir -p "$ROOT/results"
rm -f "$ROOT/results/results.json"
cd "$ROOT/source" || exit 1
stderr="$(mktemp)" || stderr=/dev/null
node scripts/runTs.js scripts/autograde.ts 2>"$stderr"
status=$?
cat "$stderr" >&2
if [ ! -s "$ROOT/results/results.json" ]; then
  node scripts/autograde-failed.js "$status" "$stderr" ${detailsLimit} ${FALLBACK_RESULTS} "$ROOT/results/results.json" ||
    cp ${FALLBACK_RESULTS} "$ROOT/results/results.json"
fi
[ "$stderr" = /dev/null ] || rm -f "$stderr"
exit "$status"
`;
}
