/**
 * What the kernel lets this grader do, found by trying it with a throw-away process: Docker's
 * default capabilities and seccomp profile refuse `unshare` and `mount` to root, and a tool on
 * PATH says nothing about whether it may run. Each probe answers true, or a short reason.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Tools {
  prlimit?: string;
  setpriv?: string;
  unshare?: string;
  mount?: string;
  chroot?: string;
  setsid?: string;
  /** Installs the syscall filter (syscallFilter.ts). */
  perl?: string;
}

/** The namespaces each child of a root grader gets when the kernel allows them. */
export const NAMESPACE_FLAGS = [
  '--net', '--ipc', '--uts', '--pid', '--fork', '--kill-child=SIGKILL', '--mount', '--mount-proc', '--propagation', 'private',
];

/** A probe that takes longer than this is a machine that should not be grading. */
const PROBE_LIMIT_MS = 15_000;

function onPath(tool: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, tool);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

export function findTools(): Tools {
  return {
    prlimit: onPath('prlimit'),
    setpriv: onPath('setpriv'),
    unshare: onPath('unshare'),
    mount: onPath('mount'),
    setsid: onPath('setsid'),
    perl: onPath('perl'),
    // chroot lives in sbin, which a root PATH has; sudo or a container may leave it out.
    chroot: onPath('chroot') ?? ['/usr/sbin/chroot', '/sbin/chroot'].find((file) => fs.existsSync(file)),
  };
}

/** Runs a probe; true when it exits 0, else the first line it printed (or how it ended). */
function tryRun(command: readonly string[], what: string): true | string {
  const run = spawnSync(command[0], command.slice(1), { encoding: 'utf8', env: {}, timeout: PROBE_LIMIT_MS, stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.status === 0) return true;
  if (run.error) return `${what}: ${run.error.message}`;
  const said = `${run.stderr}\n${run.stdout}`.trim().split('\n')[0]?.trim();
  return `${what}: ${said || (run.signal ? `killed by ${run.signal}` : `exit code ${run.status}`)}`;
}

/**
 * The namespaces, the tmpfs that hides folders inside them, and the drop of privileges, exactly as
 * a child gets them (containment.ts inNamespaces): as root, the change to nobody; as another user,
 * inside a user namespace of its own, the drop of every capability.
 */
export function probeNamespaces(tools: Tools, as: 'root' | 'user'): true | string {
  if (!tools.unshare) return 'unshare not found';
  if (!tools.setpriv) return 'setpriv not found';
  const mount = tools.mount ? 'mount -t tmpfs -o ro,size=4k,mode=0755 probe "$1" || exit 97; ' : '';
  const drop = as === 'root' ? '--reuid=65534 --regid=65534 --clear-groups' : '--bounding-set=-all --inh-caps=-all --no-new-privs';
  const userns = as === 'user' ? ['--user', '--map-root-user'] : [];
  return tryRun(
    [
      tools.setpriv, '--pdeathsig', 'SIGKILL', '--', tools.unshare, ...userns, ...NAMESPACE_FLAGS, '--',
      '/bin/sh', '-c', `${mount}exec "$2" ${drop} -- /bin/sh -c 'exit 0'`, 'sh', os.tmpdir(), tools.setpriv,
    ],
    as === 'root' ? 'namespaces refused' : 'user namespaces refused',
  );
}

/** The change to a uid of the children's pool, as withOwnUids makes it. */
export function probeUidChange(tools: Tools, uid: number): true | string {
  return tryRun([tools.setpriv!, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', '/bin/sh', '-c', 'exit 0'], 'setpriv refused');
}

/** Resource limits as prlimit sets them (`--as=…`, `--nproc=…`). */
export function probeRlimits(tools: Tools, limits: readonly string[]): true | string {
  if (!tools.prlimit) return 'prlimit not found';
  return tryRun([tools.prlimit, ...limits, '--', '/bin/sh', '-c', 'exit 0'], 'prlimit refused');
}

/** A command run inside a jail's root folder (chroot, then the command as the jail knows it). */
export function probeJail(tools: Tools, root: string, command: readonly string[]): true | string {
  return tryRun([tools.chroot!, root, ...command], 'chroot refused');
}

/**
 * The syscall filter as a child gets it (`prefix`, then Node): Node must start under it, and be
 * refused a socket, a file opened for writing and a signal to its parent, each with the errno the
 * filter gives.
 */
export function probeSyscallFilter(prefix: readonly string[]): true | string {
  const check = [
    "const fs = require('fs'), wrong = [];",
    "try { fs.openSync('/dev/null', 'w'); wrong.push('a file opened for writing'); } catch (e) { if (e.code !== 'EACCES') wrong.push('open: ' + e.code); }",
    "try { process.kill(process.ppid, 0); wrong.push('a signal to its parent'); } catch (e) { if (e.code !== 'EPERM') wrong.push('kill: ' + e.code); }",
    "const socket = require('net').connect('/nonexistent/socket');",
    "socket.on('error', (e) => { if (e.code !== 'EACCES') wrong.push('a socket (' + e.code + ')'); if (wrong.length) console.error('allowed ' + wrong.join(', ')); process.exit(wrong.length ? 1 : 0); });",
  ].join(' ');
  return tryRun([...prefix, process.execPath, '-e', check], 'syscall filter refused');
}
