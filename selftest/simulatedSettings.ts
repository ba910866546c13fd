/**
 * How the self-tests, run as root, take on the settings the contract's Runtime section names that
 * this machine is not in (selftest/attacks/settings.test.ts, the Gradescope bundle, each Node
 * line): a command prefix for each, and the folders an unprivileged user must reach.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Docker's default for root: no CAP_SYS_ADMIN, so `unshare` and `mount` fail (Gradescope's own container). */
export const WITHOUT_SYS_ADMIN = ['setpriv', '--bounding-set', '-sys_admin', '--inh-caps', '-sys_admin', '--'];

/** A uid no account and no other test uses: the "unprivileged user" of these runs. */
export const UNPRIVILEGED_UID = 63_017;
export const AS_USER = ['setpriv', `--reuid=${UNPRIVILEGED_UID}`, `--regid=${UNPRIVILEGED_UID}`, '--clear-groups', '--'];

/**
 * Everything under `root` readable by the unprivileged user, `writable` its own. Only folders below
 * the temporary folder are opened: the temporary folder itself keeps its mode (it was made 0755
 * here once, which took /tmp from every other user of the machine).
 */
export function openTo(root: string, writable: string): void {
  const tmp = os.tmpdir();
  for (let dir = root; dir.startsWith(tmp + path.sep); dir = path.dirname(dir)) fs.chmodSync(dir, 0o755);
  fs.mkdirSync(writable, { recursive: true });
  fs.chownSync(writable, UNPRIVILEGED_UID, UNPRIVILEGED_UID);
}
