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
 * processes, workers or addons; no network on Node ≥ 25), a syscall filter where perl can install
 * one (syscallFilter.ts: no socket, no change to any file, no other process), a memory cap that
 * covers typed arrays (RLIMIT_AS; the V8 heap flag alone does not count ArrayBuffers), no core
 * file, a working folder it cannot write, and a session of its own.
 * What is in force and what is not is reported with every result (ContainmentReport).
 */
import fs from 'node:fs';
import path from 'node:path';
import { GraderError } from '../errors';
import { limits, nodeCommand, nodeLayers, permissionCoversNetwork, permissionFlag, syscallFilter, type ChildPaths } from './childLayers';
import { emptyFolder } from './childView';
import type { ContainmentReport } from '../model/containmentReport';
import { buildJail } from './jail';
import { inNamespaces } from './namespaces';
import { findTools, probeJail, probeNamespaces, probeUidChange, type Tools } from './probeLayers';
import type { ChildCommand } from './childCommand';
import { blockBase, uidPoolOfThisProcess, type UidPool } from './uidPool';

export type { ContainmentReport } from '../model/containmentReport';
export { permissionCoversNetwork, permissionFlag, PROCESS_CAP } from './childLayers';

export interface ContainmentOptions {
  /** The child runtime's root folder (lib/sandbox/build.ts) and its entry script. */
  runtimeRoot: string;
  childEntry: string;
  memoryBytes: number;
  /** Folders the child must not see into (a batch's submissions and results); covered in the namespace settings. */
  hide?: readonly string[];
  /** Where a jail may be built (default: beside the runtime). */
  cacheDir?: string;
}

export type { ChildCommand } from './childCommand';

/** Stands in the arguments for the uid of the child being started. */
export const UID_SLOT = '@child-uid@';

const inside = (dir: string, file: string) => file === dir || file.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

const NETWORK_GAP = () =>
  `network isolation: no network namespace, and Node ${process.version} has no network permission (Node 25 and later have): a child can open sockets, loopback included`;

export function childCommand(options: ContainmentOptions): ChildCommand {
  return { ...chooseCommand(options), memoryBytes: options.memoryBytes };
}

function chooseCommand(options: ContainmentOptions): ChildCommand {
  // The permission model checks the path before following links: a node_modules that is a
  // symlink (a handout, a monorepo) would otherwise deny the child its own runtime.
  const paths: ChildPaths = {
    runtimeRoot: fs.realpathSync(options.runtimeRoot),
    childEntry: fs.realpathSync(options.childEntry),
    seedrandom: fs.realpathSync(path.dirname(require.resolve('seedrandom/package.json'))),
    memoryBytes: options.memoryBytes,
  };
  const tools = findTools();
  const cacheDir = options.cacheDir ?? path.dirname(paths.runtimeRoot);
  if (process.getuid?.() !== 0) {
    const userNamespaces = probeNamespaces(tools, 'user');
    return userNamespaces === true ? inNamespaces(paths, tools, options.hide ?? [], 'user', cacheDir) : asSameUser(paths, tools, userNamespaces, cacheDir);
  }
  if (!tools.setpriv) {
    throw new GraderError('the grader runs as root, and without setpriv (util-linux) student code would run as root too: install util-linux, or grade as an unprivileged user');
  }
  const namespaces = probeNamespaces(tools, 'root');
  if (namespaces === true) return inNamespaces(paths, tools, options.hide ?? [], 'root', cacheDir);
  return withOwnUids(paths, tools, namespaces, cacheDir);
}

/** A gap that the syscall filter closes where it is in force, said only where it is not. */
const unlessFiltered = (filter: { gaps: string[] }, gap: string) => (filter.gaps.length > 0 ? [gap] : []);

function asSameUser(paths: ChildPaths, tools: Tools, noNamespaces: string, cacheDir: string): ChildCommand {
  const limit = limits(tools, paths.memoryBytes, false);
  const filter = syscallFilter(tools);
  const cwd = emptyFolder(cacheDir);
  // setpriv needs no privilege to set the parent-death signal; without it the child stays in the
  // grader's process group, so that a Ctrl-C of the grader still reaches it.
  const own = tools.setpriv ? [tools.setpriv, '--pdeathsig', 'SIGKILL', '--'] : [];
  const command = [...own, ...limit.prefix, ...filter.prefix, ...nodeCommand(process.execPath, paths.runtimeRoot, paths.seedrandom, paths.memoryBytes, paths.childEntry, cwd)];
  return {
    file: command[0],
    args: command.slice(1),
    setting: 'same-user',
    inForce: [...nodeLayers(Boolean(tools.setpriv)), ...limit.layers, ...filter.layers, 'a working folder it cannot write, empty'],
    missing: [
      ...(tools.setpriv ? [] : ['a session of its own (setpriv not found): kill(0) from a child reaches the grader\'s process group']),
      ...limit.gaps,
      ...filter.gaps,
      filter.gaps.length > 0
        ? 'a user of its own (the grader is not root): a child can signal the grader and its other children, and read what the grader\'s user can read where the permission model does not check'
        : 'a user of its own (the grader is not root): a child can read what the grader\'s user can read where the permission model does not check (realpath, stat)',
      `PID, mount, network, IPC and UTS namespaces (${noNamespaces})`,
      ...(permissionCoversNetwork() ? [] : unlessFiltered(filter, NETWORK_GAP())),
    ],
    ownSession: Boolean(tools.setpriv),
    cwd,
  };
}

function withOwnUids(paths: ChildPaths, tools: Tools, noNamespaces: string, cacheDir: string): ChildCommand {
  const base = blockBase(process.pid);
  if (base === undefined) {
    throw new GraderError(`the grader runs as root without namespaces (${noNamespaces}) and this container maps no range of uids for its children: grade as an unprivileged user`);
  }
  const uids = uidPoolOfThisProcess(base);
  const dropped = probeUidChange(tools, base);
  if (dropped !== true) {
    throw new GraderError(`the grader runs as root, but can neither make namespaces (${noNamespaces}) nor run a child as another uid (${dropped}): student code would run as root; grade as an unprivileged user`);
  }
  const limit = limits(tools, paths.memoryBytes, true);
  const filter = syscallFilter(tools);
  const dropTo = (setpriv: string) => [setpriv, `--reuid=${UID_SLOT}`, `--regid=${UID_SLOT}`, '--clear-groups', '--pdeathsig', 'SIGKILL', '--'];
  const missing = [
    `PID, mount, network, IPC and UTS namespaces (${noNamespaces})`,
    ...limit.gaps,
    ...filter.gaps,
    ...(permissionCoversNetwork() ? [] : unlessFiltered(filter, NETWORK_GAP())),
    ...unlessFiltered(filter, 'an IPC namespace: System V IPC is shared (Node offers no API for it without an addon, which the permission model refuses)'),
  ];
  const inForce = [...nodeLayers(true), ...limit.layers, ...filter.layers, `a uid of its own for each concurrent child (from ${base}, ${uids.size} in all), no groups`];

  const jail = jailFor(paths, tools, cacheDir, uids);
  if (typeof jail !== 'string') {
    // perl is not in the root folder: the filter is installed before chroot, and kept through every exec after it.
    const command = [
      ...limit.prefix,
      ...filter.prefix,
      tools.chroot!, jail.root,
      ...dropTo(jail.setpriv),
      ...nodeCommand(jail.node, jail.runtimeRoot, undefined, paths.memoryBytes, jail.childEntry, '/'),
    ];
    inForce.push('a root folder of its own (chroot) holding only Node and its runtime, every folder read-only to it and no socket: no project, submission, result, temp or /proc file exists for it; it is also its working folder');
    return { file: command[0], args: command.slice(1), setting: 'own-uids', inForce, missing, ownSession: true, uids, cwd: '/' };
  }
  missing.push(`a root folder of its own (${jail}): files readable by every user stay readable to the child's uid, where the permission model does not check`);
  const cwd = emptyFolder(cacheDir);
  const command = [
    ...dropTo(tools.setpriv!),
    ...limit.prefix,
    ...filter.prefix,
    ...nodeCommand(process.execPath, paths.runtimeRoot, paths.seedrandom, paths.memoryBytes, paths.childEntry, cwd),
  ];
  inForce.push('a working folder it cannot write, empty');
  return { file: command[0], args: command.slice(1), setting: 'own-uids', inForce, missing, ownSession: true, uids, cwd };
}

/** A built jail in which Node starts under the permission model as one of the pool's uids, or why there is none. */
function jailFor(paths: ChildPaths, tools: Tools, cacheDir: string, uids: UidPool) {
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
