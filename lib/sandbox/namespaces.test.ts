import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { VIEW_THEN_EXEC } from './namespaces';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'namespaces-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/**
 * The view script with a stand-in `mount` first on PATH: it fails every mount, and with `removes`
 * it first removes what it was to mount over, as another process can between the script's test
 * and its mount. The last mount (the child's working folder) succeeds.
 */
function runView(removes: boolean): number | null {
  const bin = fs.mkdtempSync(path.join(work, 'bin-'));
  const folder = fs.mkdtempSync(path.join(work, 'folder-'));
  const socket = path.join(work, `socket-${path.basename(bin)}`);
  fs.writeFileSync(socket, '');
  const cwd = fs.mkdtempSync(path.join(work, 'cwd-'));
  const target = '"$(eval echo \\${$#})"';
  fs.writeFileSync(path.join(bin, 'mount'), `#!/bin/sh\nt=${target}\n[ "$t" = '${cwd}' ] && exit 0\n${removes ? 'rm -rf "$t"\n' : ''}exit 32\n`, { mode: 0o755 });
  const run = spawnSync('/bin/sh', ['-c', VIEW_THEN_EXEC, 'sh', folder, '--', socket, '--', cwd, 'true'], {
    env: { PATH: `${bin}:${process.env.PATH}` },
  });
  return run.status;
}

it('a folder or socket removed between the test and its mount is skipped: nothing is left to hide', () => {
  expect(runView(true)).toBe(0);
});

it('a mount that fails over something still there is the set-up failure (exit 97)', () => {
  expect(runView(false)).toBe(97);
});
