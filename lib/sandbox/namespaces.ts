/**
 * The child in namespaces of its own (the `namespaces` setting as root, `user-namespaces` as
 * another user): PID, mount, network, IPC and UTS namespaces; inside the mount namespace, before
 * privileges are dropped, the view of childView.ts (the batch's folders, the temporary and runtime
 * folders and every folder anyone may write covered by an empty read-only tmpfs, the sockets left
 * masked) and a working folder of its own. As root the child then becomes nobody; as another user
 * the namespaces sit in a user namespace of their own (the only user mapped is the grader's, as
 * root inside), and the child drops every capability before Node starts, so it cannot undo a mount.
 */
import fs from 'node:fs';
import type { ChildCommand } from './childCommand';
import { limits, nodeCommand, nodeLayers, syscallFilter, type ChildPaths } from './childLayers';
import { childView, emptyFolder } from './childView';
import { NAMESPACE_FLAGS, type Tools } from './probeLayers';

/** Nobody: the conventional unprivileged account, for children in namespaces of their own. */
const UNPRIVILEGED = 65534;

/**
 * Runs as root inside the child's new mount namespace, before privileges are dropped: covers each
 * folder named before the first `--` with an empty read-only tmpfs, binds /dev/null over each
 * socket named before the second, mounts an empty read-only tmpfs of the child's own on the folder
 * named next and changes into it, then becomes the rest of the command. Exit code 97 (before the
 * runtime starts) tells the grader that its own set-up failed. A folder or socket that another
 * process removed between the test and the mount is not a failure: there is nothing left to hide.
 */
export const VIEW_THEN_EXEC = [
  'while [ "$1" != -- ]; do [ -d "$1" ] && { mount -t tmpfs -o ro,size=4k,mode=0755 hidden "$1" || [ ! -e "$1" ] || exit 97; }; shift; done; shift',
  'while [ "$1" != -- ]; do [ -e "$1" ] && { mount --bind /dev/null "$1" || [ ! -e "$1" ] || exit 97; }; shift; done; shift',
  'mount -t tmpfs -o ro,size=4k,mode=0555 cwd "$1" && cd "$1" || exit 97; shift',
  'exec "$@"',
].join('\n');

export function inNamespaces(paths: ChildPaths, tools: Tools, hide: readonly string[], as: 'root' | 'user', cacheDir: string): ChildCommand {
  const limit = limits(tools, paths.memoryBytes, false);
  const filter = syscallFilter(tools);
  const cwd = emptyFolder(cacheDir);
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
    ...limit.prefix,
    ...ownSession,
    ...filter.prefix,
    ...nodeCommand(process.execPath, paths.runtimeRoot, paths.seedrandom, paths.memoryBytes, paths.childEntry, cwd),
  ];
  const missing = [...limit.gaps, ...filter.gaps];
  const needed = [paths.runtimeRoot, paths.seedrandom, cwd, ...[process.execPath, ...Object.values(tools)].flatMap((file) => (file ? [fs.realpathSync(file)] : []))];
  const view = tools.mount ? childView(hide, needed) : undefined;
  if (view) command = ['/bin/sh', '-c', VIEW_THEN_EXEC, 'sh', ...view.covered, '--', ...view.masked, '--', cwd, ...command];
  else missing.push("an empty view of the batch's folders, the temporary and runtime folders and the machine's sockets, and a working folder of its own (mount not found): the child sees them as the permission model lets it");
  // Where the filter is in force it refuses sockets and writes there anyway.
  if (view && view.uncovered.length > 0 && filter.gaps.length > 0) {
    missing.push(`an empty view of ${view.uncovered.join(', ')} (they hold the grader's own files): the child may reach sockets there and leave files`);
  }
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
      ...nodeLayers(true),
      ...limit.layers,
      ...filter.layers,
      as === 'root' ? namespaces : `${namespaces}, in a user namespace of its own, with no capability`,
      ...(view
        ? [
          "an empty read-only view of the batch's submissions and results, the temporary and runtime folders (/tmp, /var/tmp, /dev/shm, /run) and every folder anyone may write, the machine's other sockets masked: it can reach no socket of the machine by its path and leave no file there",
          'a working folder of its own, empty and read-only, gone with it',
        ]
        : []),
      ...(as === 'root' ? ['the unprivileged user nobody'] : []),
    ],
    missing: as === 'root' ? missing : [
      ...missing,
      "a user of its own (the grader is not root): the child runs as the grader's user, so files that user may read and no tmpfs covers are readable where the permission model does not check",
    ],
    ownSession: true,
    cwd,
  };
}
