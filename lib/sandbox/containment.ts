/**
 * How a child that runs student code is started, with every containment this machine allows:
 * - Node's permission model: reads only of the child runtime and the one package it loads; no
 *   writes, no child processes, no workers, no native addons (and no network on Node ≥ 25);
 * - a memory cap that covers typed arrays too (RLIMIT_AS through prlimit; the V8 heap flag alone
 *   does not count ArrayBuffers), plus the V8 heap cap so heap exhaustion fails early;
 * - when the grader runs as root, namespaces of its own for each child: network (no network, not
 *   even loopback), PID (it is process 1 of an otherwise empty tree: `kill(-1)` and ptrace reach
 *   no other child and not the grader), mount (a /proc of its own, and the folders that name other
 *   submissions covered by an empty tmpfs), IPC and UTS; and the unprivileged uid/gid nobody, so it
 *   can neither signal the grader nor read its files.
 * What could not be applied is listed in `missing`, for the report and docs/security.md.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface ContainmentOptions {
  /** The child runtime's root folder (lib/sandbox/build.ts) and its entry script. */
  runtimeRoot: string;
  childEntry: string;
  memoryBytes: number;
  /** Folders the child must not see into (a batch's submissions and results); covered when root. */
  hide?: readonly string[];
}

export interface ChildCommand {
  file: string;
  args: string[];
  missing: string[];
}

/** Nobody: the conventional unprivileged account. */
const UNPRIVILEGED = 65534;
/** Node reserves about 1 GiB of address space before the student allocates anything. */
const ADDRESS_SPACE_BASELINE = 1024 ** 3;

/**
 * Runs as root inside the child's new mount namespace, before privileges are dropped: covers each
 * folder named before `--` with an empty read-only tmpfs, then becomes the rest of the command.
 * Exit code 97 (before the runtime starts) tells the grader that its own set-up failed.
 */
const HIDE_THEN_EXEC =
  'for d do [ "$d" = -- ] && { shift; break; }; mount -t tmpfs -o ro,size=4k,mode=0755 hidden "$d" || exit 97; shift; done; exec "$@"';

function onPath(tool: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, tool);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The permission flag of the Node running the grader (the child runs the same binary): Node 20
 * knows only --experimental-permission, Node 24 and later only --permission, Node 22 both.
 */
export function permissionFlag(flags: ReadonlySet<string> = process.allowedNodeEnvironmentFlags): string {
  if (flags.has('--permission')) return '--permission';
  if (flags.has('--experimental-permission')) return '--experimental-permission';
  throw new Error(`Node ${process.version} has no permission model (--permission): run the grader on Node 22, 24 or 26`);
}

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
  return [...new Set(real)].filter((dir) => dir !== path.parse(dir).root && !needed.some((file) => inside(dir, file))).sort();
}

export function childCommand(options: ContainmentOptions): ChildCommand {
  const missing: string[] = [];
  // The permission model checks the path before following links: a node_modules that is a
  // symlink (a handout, a monorepo) would otherwise deny the child its own runtime.
  const runtimeRoot = fs.realpathSync(options.runtimeRoot);
  const childEntry = fs.realpathSync(options.childEntry);
  const { memoryBytes } = options;
  const seedrandom = fs.realpathSync(path.dirname(require.resolve('seedrandom/package.json')));
  const node = [
    process.execPath,
    permissionFlag(),
    `--allow-fs-read=${runtimeRoot}/*`,
    `--allow-fs-read=${seedrandom}/*`,
    '--no-warnings',
    // No background compiler or GC threads: a child lives a few hundred ms, and on a 2-core
    // grader two children plus their helper threads were fighting over the cores (~7% slower).
    '--single-threaded',
    `--max-old-space-size=${Math.max(64, Math.floor(memoryBytes / 1024 ** 2))}`,
    childEntry,
  ];
  let command = node;
  const prlimit = onPath('prlimit');
  if (prlimit) command = [prlimit, `--as=${memoryBytes + ADDRESS_SPACE_BASELINE}`, '--', ...command];
  else missing.push('memory cap on typed arrays (prlimit not found): only the V8 heap is capped');

  const isRoot = process.getuid?.() === 0;
  const setpriv = onPath('setpriv');
  const unshare = onPath('unshare');
  const mount = onPath('mount');
  if (isRoot && setpriv) {
    // A change of user clears the parent-death signal unshare's --kill-child set; without it again,
    // killing a hung child's unshare would leave the child running, unowned, for ever.
    command = [setpriv, `--reuid=${UNPRIVILEGED}`, `--regid=${UNPRIVILEGED}`, '--clear-groups', '--pdeathsig', 'SIGKILL', '--', ...command];
  } else if (isRoot) missing.push('unprivileged user (setpriv not found): the child runs as root');
  if (!isRoot) {
    missing.push('namespaces and a separate user (the grader is not root): children share its user, its network and its view of processes');
    return { file: command[0], args: command.slice(1), missing };
  }
  if (!unshare) {
    missing.push('network, PID and mount namespaces (unshare not found)');
    return { file: command[0], args: command.slice(1), missing };
  }
  const hidden = mount ? hideable(options.hide ?? [], [runtimeRoot, seedrandom, fs.realpathSync(process.execPath)]) : [];
  if (!mount) missing.push('hiding other submissions\' folders (mount not found)');
  if (hidden.length > 0) command = ['/bin/sh', '-c', HIDE_THEN_EXEC, 'sh', ...hidden, '--', ...command];
  command = [
    unshare, '--net', '--ipc', '--uts', '--pid', '--fork', '--kill-child=SIGKILL', '--mount', '--mount-proc', '--propagation', 'private', '--',
    ...command,
  ];
  return { file: command[0], args: command.slice(1), missing };
}
