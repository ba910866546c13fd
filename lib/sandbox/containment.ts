/**
 * How a child that runs student code is started: with the strongest set of layers this machine
 * allows, found by trying them (lib/sandbox/probeLayers.ts), never assumed from the tools on PATH.
 * Three settings:
 * - root with namespaces (a VM, a CI runner with sudo): PID, mount, network, IPC and UTS
 *   namespaces of its own, folders that name other submissions covered by an empty tmpfs, the
 *   unprivileged user nobody;
 * - root without CAP_SYS_ADMIN (Docker's default, as on Gradescope): no namespace can be made, so
 *   each concurrent child runs as a uid of its own (lib/sandbox/uidPool.ts), in a root folder of its
 *   own (chroot, lib/sandbox/jail.ts), with RLIMIT_NPROC on its uid;
 * - not root (a TA's laptop, a CI job without sudo): the same namespaces inside a user namespace
 *   of its own when the kernel lets unprivileged users make one, every capability dropped; else
 *   the child runs as the grader's user, with no namespace.
 * In every setting: Node's permission model (reads of the child runtime only; no writes, child
 * processes, workers or addons; no network on Node ≥ 25), a memory cap that covers typed arrays
 * (RLIMIT_AS; the V8 heap flag alone does not count ArrayBuffers), and a session of its own.
 * What is in force and what is not is reported with every result (ContainmentReport).
 */
import fs from 'node:fs';
import path from 'node:path';
import { GraderError } from '../errors';
import type { ContainmentReport } from './containmentReport';
import { buildJail } from './jail';
import { findTools, NAMESPACE_FLAGS, probeJail, probeNamespaces, probeRlimits, probeUidChange, type Tools } from './probeLayers';
import { blockBase, uidPoolOfThisProcess, type UidPool } from './uidPool';

export type { ContainmentReport } from './containmentReport';

export interface ContainmentOptions {
  /** The child runtime's root folder (lib/sandbox/build.ts) and its entry script. */
  runtimeRoot: string;
  childEntry: string;
  memoryBytes: number;
  /** Folders the child must not see into (a batch's submissions and results); covered when root. */
  hide?: readonly string[];
  /** Where a jail may be built (default: beside the runtime). */
  cacheDir?: string;
}

export interface ChildCommand {
  file: string;
  /** The command's arguments; with `uids`, UID_SLOT stands where each child's own uid goes. */
  args: string[];
  /** Layers not in force, each with why: for the report, the summary and docs/security.md. */
  missing: string[];
  /** Layers in force, in words. */
  inForce?: string[];
  setting?: ContainmentReport['setting'];
  /**
   * Start it in a session (and process group) of its own. A PID namespace does not cover process
   * groups: without this, `kill(0)` from a child (its parent is pid 0 there, so
   * `process.kill(process.ppid)` is one) reaches every child in the grader's group.
   */
  ownSession?: boolean;
  /** Root without namespaces: each child runs as a uid of its own from this pool. */
  uids?: UidPool;
  /** The folder the child starts in (one it may read), when not the grader's own. */
  cwd?: string;
}

/** Stands in the arguments for the uid of the child being started. */
export const UID_SLOT = '@child-uid@';
/** Nobody: the conventional unprivileged account, for children in namespaces of their own. */
const UNPRIVILEGED = 65534;
/** Node reserves about 1 GiB of address space before the student allocates anything. */
const ADDRESS_SPACE_BASELINE = 1024 ** 3;
/**
 * Processes and threads per child uid: Node starts about seven threads, libuv's pool four more;
 * a fork bomb (were the permission model ever bypassed) stops here.
 */
export const PROCESS_CAP = 64;

/**
 * Runs as root inside the child's new mount namespace, before privileges are dropped: covers each
 * folder named before `--` with an empty read-only tmpfs, then becomes the rest of the command.
 * Exit code 97 (before the runtime starts) tells the grader that its own set-up failed.
 */
const HIDE_THEN_EXEC =
  'for d do [ "$d" = -- ] && { shift; break; }; [ -d "$d" ] || { shift; continue; }; mount -t tmpfs -o ro,size=4k,mode=0755 hidden "$d" || exit 97; shift; done; exec "$@"';

/**
 * The permission flag of the Node running the grader (the child runs the same binary): Node 20
 * knows only --experimental-permission, Node 24 and later only --permission, Node 22 both.
 */
export function permissionFlag(flags: ReadonlySet<string> = process.allowedNodeEnvironmentFlags): string {
  if (flags.has('--permission')) return '--permission';
  if (flags.has('--experimental-permission')) return '--experimental-permission';
  throw new Error(`Node ${process.version} has no permission model (--permission): run the grader on Node 22, 24 or 26`);
}

/** Node 25 and later refuse network access under the permission model unless --allow-net is given. */
export const permissionCoversNetwork = (flags: ReadonlySet<string> = process.allowedNodeEnvironmentFlags) => flags.has('--allow-net');

const inside = (dir: string, file: string) => file === dir || file.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

/** The folders that can be covered: real, existing, and holding nothing the child needs to read. */
function hideable(folders: readonly string[], needed: readonly string[]): string[] {
  const real = folders.flatMap((dir) => {
    try {
      return fs.statSync(dir).isDirectory() ? [fs.realpathSync(dir)] : [];
    } catch {
      return [];
    }
  });
  const kept = [...new Set(real)].filter((dir) => dir !== path.parse(dir).root && !needed.some((file) => inside(dir, file)));
  // A folder inside another hidden one is hidden with it (and its mount point would be gone).
  return kept.filter((dir) => !kept.some((other) => other !== dir && inside(other, dir))).sort();
}

/** Node and its flags for a child whose runtime is at `runtimeRoot` (as the child sees it). */
function nodeCommand(node: string, runtimeRoot: string, seedrandom: string | undefined, memoryBytes: number, entry: string): string[] {
  return [
    node,
    permissionFlag(),
    `--allow-fs-read=${runtimeRoot}/*`,
    ...(seedrandom ? [`--allow-fs-read=${seedrandom}/*`] : []),
    '--no-warnings',
    // No background compiler or GC threads: a child lives a few hundred ms, and on a 2-core
    // grader two children plus their helper threads were fighting over the cores (~7% slower).
    '--single-threaded',
    `--max-old-space-size=${Math.max(64, Math.floor(memoryBytes / 1024 ** 2))}`,
    entry,
  ];
}

const NODE_LAYERS = () => [
  `Node's permission model (reads of its runtime only; no writes, processes, workers or addons${permissionCoversNetwork() ? '; no network' : ''})`,
  'an empty environment',
  'a session and process group of its own',
];
const NETWORK_GAP = () =>
  `network isolation: no network namespace, and Node ${process.version} has no network permission (Node 25 and later have): a child can open sockets, loopback included`;

interface Paths {
  runtimeRoot: string;
  childEntry: string;
  seedrandom: string;
  memoryBytes: number;
}

export function childCommand(options: ContainmentOptions): ChildCommand {
  // The permission model checks the path before following links: a node_modules that is a
  // symlink (a handout, a monorepo) would otherwise deny the child its own runtime.
  const paths: Paths = {
    runtimeRoot: fs.realpathSync(options.runtimeRoot),
    childEntry: fs.realpathSync(options.childEntry),
    seedrandom: fs.realpathSync(path.dirname(require.resolve('seedrandom/package.json'))),
    memoryBytes: options.memoryBytes,
  };
  const tools = findTools();
  if (process.getuid?.() !== 0) {
    const userNamespaces = probeNamespaces(tools, 'user');
    return userNamespaces === true ? inNamespaces(paths, tools, options.hide ?? [], 'user') : asSameUser(paths, tools, userNamespaces);
  }
  if (!tools.setpriv) {
    throw new GraderError('the grader runs as root, and without setpriv (util-linux) student code would run as root too: install util-linux, or grade as an unprivileged user');
  }
  const namespaces = probeNamespaces(tools, 'root');
  if (namespaces === true) return inNamespaces(paths, tools, options.hide ?? [], 'root');
  return withOwnUids(paths, tools, namespaces, options.cacheDir ?? path.dirname(paths.runtimeRoot));
}

/** The memory cap (and the process cap, for a child with a uid of its own) as a prlimit prefix, or why not. */
function limits(tools: Tools, memoryBytes: number, processes: boolean): { prefix: string[]; gaps: string[]; layers: string[] } {
  const as = `--as=${memoryBytes + ADDRESS_SPACE_BASELINE}`;
  const args = processes ? [as, `--nproc=${PROCESS_CAP}`] : [as];
  const works = probeRlimits(tools, args);
  if (works !== true) return { prefix: [], gaps: [`a memory cap on typed arrays (${works}): only the V8 heap is capped`], layers: [] };
  const layers = [`a memory cap of ${Math.round(memoryBytes / 1024 ** 2)} MiB, typed arrays included (RLIMIT_AS)`];
  if (processes) layers.push(`at most ${PROCESS_CAP} processes and threads on its uid (RLIMIT_NPROC)`);
  return { prefix: [tools.prlimit!, ...args, '--'], gaps: [], layers };
}

function asSameUser(paths: Paths, tools: Tools, noNamespaces: string): ChildCommand {
  const { prefix, gaps, layers } = limits(tools, paths.memoryBytes, false);
  // setpriv needs no privilege to set the parent-death signal; without it the child stays in the
  // grader's process group, so that a Ctrl-C of the grader still reaches it.
  const own = tools.setpriv ? [tools.setpriv, '--pdeathsig', 'SIGKILL', '--'] : [];
  const command = [...own, ...prefix, ...nodeCommand(process.execPath, paths.runtimeRoot, paths.seedrandom, paths.memoryBytes, paths.childEntry)];
  const nodeLayers = NODE_LAYERS().filter((layer) => tools.setpriv || !layer.startsWith('a session'));
  return {
    file: command[0],
    args: command.slice(1),
    setting: 'same-user',
    inForce: [...nodeLayers, ...layers],
    missing: [
      ...(tools.setpriv ? [] : ['a session of its own (setpriv not found): kill(0) from a child reaches the grader\'s process group']),
      ...gaps,
      'a user of its own (the grader is not root): a child can signal the grader and its other children, and read what the grader\'s user can read where the permission model does not check',
      `PID, mount, network, IPC and UTS namespaces (${noNamespaces})`,
      ...(permissionCoversNetwork() ? [] : [NETWORK_GAP()]),
    ],
    ownSession: Boolean(tools.setpriv),
  };
}

/**
 * Namespaces of its own. As root the child then becomes nobody; as another user the namespaces sit
 * in a user namespace of their own (the only user mapped is the grader's, as root inside), and the
 * child drops every capability before Node starts, so it cannot undo the tmpfs or mount anything.
 */
function inNamespaces(paths: Paths, tools: Tools, hide: readonly string[], as: 'root' | 'user'): ChildCommand {
  const { prefix, gaps, layers } = limits(tools, paths.memoryBytes, false);
  const drop = as === 'root'
    ? [`--reuid=${UNPRIVILEGED}`, `--regid=${UNPRIVILEGED}`, '--clear-groups']
    : ['--bounding-set=-all', '--inh-caps=-all', '--no-new-privs'];
  // In a user namespace the child is the same user as the unshare that made it, outside as inside:
  // a session of its own inside keeps its kill(0) (process.kill(process.ppid)) off that unshare.
  const ownSession = as === 'user' && tools.setsid ? [tools.setsid] : [];
  let command = [
    // A change of user clears the parent-death signal unshare's --kill-child set; without it again,
    // killing a hung child's unshare would leave the child running, unowned, for ever.
    tools.setpriv!, ...drop, '--pdeathsig', 'SIGKILL', '--',
    ...prefix,
    ...ownSession,
    ...nodeCommand(process.execPath, paths.runtimeRoot, paths.seedrandom, paths.memoryBytes, paths.childEntry),
  ];
  const missing = [...gaps];
  const hidden = tools.mount ? hideable(hide, [paths.runtimeRoot, paths.seedrandom, fs.realpathSync(process.execPath)]) : [];
  if (!tools.mount) missing.push("hiding other submissions' folders (mount not found)");
  if (hidden.length > 0) command = ['/bin/sh', '-c', HIDE_THEN_EXEC, 'sh', ...hidden, '--', ...command];
  // In a session of its own the child no longer dies with the grader's terminal group (Ctrl-C):
  // unshare is tied to the grader by its parent-death signal instead.
  const userns = as === 'user' ? ['--user', '--map-root-user'] : [];
  command = [tools.setpriv!, '--pdeathsig', 'SIGKILL', '--', tools.unshare!, ...userns, ...NAMESPACE_FLAGS, '--', ...command];
  const namespaces = 'PID, mount, network, IPC and UTS namespaces of its own';
  return {
    file: command[0],
    args: command.slice(1),
    setting: as === 'root' ? 'namespaces' : 'user-namespaces',
    inForce: [
      ...NODE_LAYERS(),
      ...layers,
      as === 'root' ? namespaces : `${namespaces}, in a user namespace of its own, with no capability`,
      ...(hidden.length > 0 ? ["the batch's submissions, results and the temp folder covered by an empty tmpfs"] : []),
      ...(as === 'root' ? ['the unprivileged user nobody'] : []),
    ],
    missing: as === 'root' ? missing : [
      ...missing,
      "a user of its own (the grader is not root): the child runs as the grader's user, so files that user may read and no tmpfs covers are readable where the permission model does not check",
    ],
    ownSession: true,
  };
}

function withOwnUids(paths: Paths, tools: Tools, noNamespaces: string, cacheDir: string): ChildCommand {
  const base = blockBase(process.pid);
  if (base === undefined) {
    throw new GraderError(`the grader runs as root without namespaces (${noNamespaces}) and this container maps no range of uids for its children: grade as an unprivileged user`);
  }
  const uids = uidPoolOfThisProcess(base);
  const dropped = probeUidChange(tools, base);
  if (dropped !== true) {
    throw new GraderError(`the grader runs as root, but can neither make namespaces (${noNamespaces}) nor run a child as another uid (${dropped}): student code would run as root; grade as an unprivileged user`);
  }
  const { prefix, gaps, layers } = limits(tools, paths.memoryBytes, true);
  const dropTo = (setpriv: string) => [setpriv, `--reuid=${UID_SLOT}`, `--regid=${UID_SLOT}`, '--clear-groups', '--pdeathsig', 'SIGKILL', '--'];
  const missing = [
    `PID, mount, network, IPC and UTS namespaces (${noNamespaces})`,
    ...gaps,
    ...(permissionCoversNetwork() ? [] : [NETWORK_GAP()]),
    'an IPC namespace: System V IPC is shared (Node offers no API for it without an addon, which the permission model refuses)',
  ];
  const inForce = [...NODE_LAYERS(), ...layers, `a uid of its own for each concurrent child (from ${base}, ${uids.size} in all), no groups`];

  const jail = jailFor(paths, tools, cacheDir, uids);
  if (typeof jail !== 'string') {
    const command = [
      ...prefix,
      tools.chroot!, jail.root,
      ...dropTo(jail.setpriv),
      ...nodeCommand(jail.node, jail.runtimeRoot, undefined, paths.memoryBytes, jail.childEntry),
    ];
    inForce.push('a root folder of its own (chroot) holding only Node and its runtime: no project, submission, result, temp or /proc file exists for it');
    return { file: command[0], args: command.slice(1), setting: 'own-uids', inForce, missing, ownSession: true, uids, cwd: '/' };
  }
  missing.push(`a root folder of its own (${jail}): files readable by every user stay readable to the child's uid, where the permission model does not check`);
  const command = [
    ...dropTo(tools.setpriv!),
    ...prefix,
    ...nodeCommand(process.execPath, paths.runtimeRoot, paths.seedrandom, paths.memoryBytes, paths.childEntry),
  ];
  return { file: command[0], args: command.slice(1), setting: 'own-uids', inForce, missing, ownSession: true, uids, cwd: paths.runtimeRoot };
}

/** A built jail in which Node starts under the permission model as one of the pool's uids, or why there is none. */
function jailFor(paths: Paths, tools: Tools, cacheDir: string, uids: UidPool) {
  if (!tools.chroot) return 'chroot not found';
  if (!inside(paths.runtimeRoot, paths.childEntry)) return 'the child entry is outside its runtime';
  const jail = buildJail({ ...paths, node: process.execPath, setpriv: tools.setpriv!, cacheDir });
  if (typeof jail === 'string') return jail;
  const uid = uids.acquire();
  try {
    const works = probeJail(tools, jail.root, [jail.setpriv, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', jail.node, permissionFlag(), `--allow-fs-read=${jail.runtimeRoot}/*`, '-e', '0']);
    return works === true ? jail : works;
  } finally {
    uids.release(uid);
  }
}

/** The command for one child: its own uid put in place when the setting gives each child one. */
export function launchCommand(child: ChildCommand): { file: string; args: string[]; release: () => void } {
  const { uids } = child;
  if (!uids) return { file: child.file, args: child.args, release: () => undefined };
  const uid = uids.acquire();
  let released = false;
  return {
    file: child.file,
    args: child.args.map((arg) => arg.replaceAll(UID_SLOT, String(uid))),
    release: () => {
      if (released) return;
      released = true;
      uids.release(uid);
    },
  };
}

/** What a result says of its containment. */
export function containmentReport(child: ChildCommand): ContainmentReport {
  return { setting: child.setting ?? 'same-user', in_force: child.inForce ?? [], missing: child.missing };
}
