/**
 * setup.sh run as Gradescope runs it, with the network and the machine stood in for: apt-get, curl
 * (serving files from a folder, failing as `curl -f` does on a missing one), tar and node are stubs
 * that log their calls, so the script's own logic runs for real: Node's tarball is unpacked only
 * when its sha256 is the one nodejs.org's SHASUMS256.txt lists for it, and the install step runs
 * only after that. The download itself needs the network, and the self-test has none.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from '../tempFolders.testkit';
import { SETUP_PACKAGES, setupSh } from './launchers';

const VERSION = 'v26.12.1';
const TARBALL = `node-${VERSION}-linux-x64.tar.xz`;
const runRoot = tempFolders('setup-sh-');

const STUBS: Record<string, string> = {
  'apt-get': 'echo "apt-get $*" >> "$LOG"',
  // The URL is the last argument; -O writes the file under its name, as curl does.
  curl: [
    'url="${@: -1}"; file="$SERVED/${url##*/}"',
    'echo "curl $url" >> "$LOG"',
    '[ -f "$file" ] || { echo "curl: (22) The requested URL returned error: 404" >&2; exit 22; }',
    'case " $* " in *" -fsSLO "*) cp "$file" .;; *) cat "$file";; esac',
  ].join('\n'),
  tar: 'echo "tar $*" >> "$LOG"',
  node: 'echo "node $*" >> "$LOG"; echo "$NODE_VERSION_SHOWN"',
};

interface Run {
  status: number | null;
  stderr: string;
  log: string[];
  /** Whether the tarball was left in the bundle's folder. */
  tarballLeft: boolean;
}

/** Runs setup.sh in a bundle folder of its own, nodejs.org serving `served` (file name → bytes). */
function setup(served: Record<string, string | Buffer>): Run {
  const root = runRoot();
  const [bundle, stubs, servedDir] = ['bundle', 'stubs', 'served'].map((name) => path.join(root, name));
  for (const dir of [bundle, stubs, servedDir]) fs.mkdirSync(dir);
  const log = path.join(root, 'log');
  fs.writeFileSync(log, '');
  fs.writeFileSync(path.join(bundle, 'setup.sh'), setupSh(VERSION), { mode: 0o755 });
  fs.writeFileSync(path.join(bundle, SETUP_PACKAGES), 'echo "setup-packages.sh" >> "$LOG"\n');
  for (const [name, body] of Object.entries(STUBS)) fs.writeFileSync(path.join(stubs, name), `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
  for (const [name, bytes] of Object.entries(served)) fs.writeFileSync(path.join(servedDir, name), bytes);
  const run = spawnSync('bash', [path.join(bundle, 'setup.sh')], {
    encoding: 'utf8',
    env: { PATH: `${stubs}:/usr/bin:/bin`, LOG: log, SERVED: servedDir, NODE_VERSION_SHOWN: VERSION },
  });
  return {
    status: run.status, stderr: run.stderr, log: fs.readFileSync(log, 'utf8').trim().split('\n'), tarballLeft: fs.existsSync(path.join(bundle, TARBALL)),
  };
}

const sha256 = (bytes: string) => createHash('sha256').update(bytes).digest('hex');
const TARBALL_BYTES = 'the release as nodejs.org built it';
const shasums = (lines: [string, string][]) => lines.map(([hash, name]) => `${hash}  ${name}\n`).join('');

describe("setup.sh's Node install", () => {
  it('a tarball whose sha256 is the one SHASUMS256.txt lists is unpacked, then removed, then the packages are installed', () => {
    const run = setup({
      [TARBALL]: TARBALL_BYTES,
      'SHASUMS256.txt': shasums([[sha256('another file'), `node-${VERSION}-darwin-arm64.tar.xz`], [sha256(TARBALL_BYTES), TARBALL]]),
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.log).toEqual([
      'apt-get update',
      'apt-get install -y --no-install-recommends ca-certificates curl xz-utils util-linux perl-base',
      `curl https://nodejs.org/dist/${VERSION}/${TARBALL}`,
      `curl https://nodejs.org/dist/${VERSION}/SHASUMS256.txt`,
      `tar -xJf ${TARBALL} -C /usr/local --strip-components=1 --no-same-owner`,
      'node --version',
      'setup-packages.sh',
    ]);
    expect(run.tarballLeft).toBe(false);
  });

  it.each([
    ['a tarball changed on the way', { [TARBALL]: `${TARBALL_BYTES}, changed`, 'SHASUMS256.txt': shasums([[sha256(TARBALL_BYTES), TARBALL]]) }],
    ['a release SHASUMS256.txt does not list', { [TARBALL]: TARBALL_BYTES, 'SHASUMS256.txt': shasums([[sha256(TARBALL_BYTES), `node-${VERSION}-linux-arm64.tar.xz`]]) }],
    ['no SHASUMS256.txt to check against', { [TARBALL]: TARBALL_BYTES }],
    ['no tarball to download', { 'SHASUMS256.txt': shasums([[sha256(TARBALL_BYTES), TARBALL]]) }],
  ])('%s: the build fails, nothing is unpacked and no package is installed', (_, served) => {
    const run = setup(served);
    expect(run.status).not.toBe(0);
    expect(run.log.filter((line) => /^(tar|node|setup-packages)/.test(line))).toEqual([]);
  });
});
