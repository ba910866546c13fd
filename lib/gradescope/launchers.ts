/**
 * The two shell files Gradescope runs, as text for the bundle. Both only launch: installing is
 * apt, curl and npm; grading and every decision about results.json are scripts/autograde.ts.
 *
 * Gradescope (Autograder Specifications) unpacks the bundle into /autograder/source, runs
 * setup.sh there once while building the image (the only time the network is up), copies
 * run_autograder to /autograder/run_autograder and runs it once per submission, as root, with the
 * submission in /autograder/submission and results expected in /autograder/results/results.json.
 */

/** The file run_autograder copies into place when Node could not even start. */
export const FALLBACK_RESULTS = 'autograder-error.json';

/**
 * Node from the official tarball, checked against the sha256 that nodejs.org publishes for that
 * release (its SHASUMS256.txt, over HTTPS), then the locked packages. The hash is looked up rather
 * than written in: the release is a parameter (--node), and a hash this project had not read from
 * nodejs.org itself would be a guess. `--omit=optional` skips the native builds vite and vitest
 * may use: the grader needs neither. Gradescope's images are x86-64 Ubuntu.
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
npm ci --omit=optional
# The snapshot each submission's type check starts from (lib/typecheck/snapshot.ts): without it the
# checks are slower, not different, so it never fails the image.
node node_modules/ts-node/dist/bin.js scripts/typecheck-snapshot.ts || echo "setup.sh: no type check snapshot; the checks run without it"
`;
}

/** AUTOGRADER_ROOT stands in for /autograder when the bundle is tried anywhere else. */
export function runAutograderSh(): string {
  return `#!/usr/bin/env bash
# Gradescope runs this once per submission. scripts/autograde.ts grades $ROOT/submission and writes
# $ROOT/results/results.json whatever happens; the copy below covers only a Node that cannot start.
set -uo pipefail
ROOT="\${AUTOGRADER_ROOT:-/autograder}"
mkdir -p "$ROOT/results"
rm -f "$ROOT/results/results.json"
cd "$ROOT/source" || exit 1
node node_modules/ts-node/dist/bin.js scripts/autograde.ts
status=$?
[ -s "$ROOT/results/results.json" ] || cp ${FALLBACK_RESULTS} "$ROOT/results/results.json"
exit "$status"
`;
}
