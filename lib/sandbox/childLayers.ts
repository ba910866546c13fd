/**
 * The layers every setting gives a child (containment.ts, namespaces.ts): Node's command under its
 * permission model, the resource limits, the syscall filter, and the words each adds to the report.
 */
import { filterArch, filterPrefix } from './syscallFilter';
import { probeRlimits, probeSyscallFilter, type Tools } from './probeLayers';

/** Node reserves about 1 GiB of address space before the student allocates anything. */
const ADDRESS_SPACE_BASELINE = 1024 ** 3;
/**
 * Processes and threads per child uid: Node starts about seven threads, libuv's pool four more;
 * a fork bomb (were the permission model ever bypassed) stops here.
 */
export const PROCESS_CAP = 64;

export interface ChildPaths {
  runtimeRoot: string;
  childEntry: string;
  seedrandom: string;
  memoryBytes: number;
}

/** A part of a child's command, what it puts in force and what it could not. */
export interface Layer {
  prefix: string[];
  layers: string[];
  gaps: string[];
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

/** Node 25 and later refuse network access (unix sockets included) under the permission model unless --allow-net is given. */
export const permissionCoversNetwork = (flags: ReadonlySet<string> = process.allowedNodeEnvironmentFlags) => flags.has('--allow-net');

/**
 * Node and its flags for a child whose runtime is at `runtimeRoot` and whose working folder is
 * `cwd` (as the child sees them). Diagnostics (heap snapshots near the heap limit, reports) go to
 * `cwd` too, whatever folder the child changes to: one it cannot write.
 */
export function nodeCommand(node: string, runtimeRoot: string, seedrandom: string | undefined, memoryBytes: number, entry: string, cwd: string): string[] {
  return [
    node,
    permissionFlag(),
    `--allow-fs-read=${runtimeRoot}/*`,
    ...(seedrandom ? [`--allow-fs-read=${seedrandom}/*`] : []),
    `--diagnostic-dir=${cwd}`,
    '--no-warnings',
    // No background compiler or GC threads: a child lives a few hundred ms, and on a 2-core
    // grader two children plus their helper threads were fighting over the cores (~7% slower).
    '--single-threaded',
    `--max-old-space-size=${Math.max(64, Math.floor(memoryBytes / 1024 ** 2))}`,
    entry,
  ];
}

export const nodeLayers = (session: boolean) => [
  `Node's permission model (reads of its runtime only; no writes, processes, workers or addons${permissionCoversNetwork() ? '; no network or unix socket' : ''})`,
  'an empty environment',
  ...(session ? ['a session and process group of its own'] : []),
];

/**
 * The memory cap, no core file (a crash leaves nothing on disk, not even through a system's crash
 * collector), and for a child with a uid of its own the process cap: a prlimit prefix, or why not.
 */
export function limits(tools: Tools, memoryBytes: number, processes: boolean): Layer {
  // prlimit takes whole bytes; --memory is in MiB and may be a fraction of one.
  const as = `--as=${Math.floor(memoryBytes) + ADDRESS_SPACE_BASELINE}`;
  const args = processes ? [as, '--core=0', `--nproc=${PROCESS_CAP}`] : [as, '--core=0'];
  const works = probeRlimits(tools, args);
  if (works !== true) {
    return { prefix: [], layers: [], gaps: [`a memory cap on typed arrays and no core files (${works}): only the V8 heap is capped, and a crash may leave a core file`] };
  }
  const layers = [`a memory cap of ${Math.round(memoryBytes / 1024 ** 2)} MiB, typed arrays included (RLIMIT_AS); no core file (RLIMIT_CORE 0)`];
  if (processes) layers.push(`at most ${PROCESS_CAP} processes and threads on its uid (RLIMIT_NPROC)`);
  return { prefix: [tools.prlimit!, ...args, '--'], layers, gaps: [] };
}

const FILTER_LAYER = 'a syscall filter (seccomp): no socket of any kind (unix, abstract or network), no change to any file (so no socket file, heap snapshot or trace left behind), no signal, priority or limit set on any process but itself, no kernel state that outlives it (keyrings, message queues, shared memory)';

let filterProbed: Layer | undefined;

/** The syscall filter (syscallFilter.ts) as a prefix that goes right before the child's Node, or why there is none; probed once. */
export function syscallFilter(tools: Tools): Layer {
  if (filterProbed) return filterProbed;
  const arch = filterArch();
  const why = !tools.perl ? 'perl not found' : !arch ? `no filter is built for ${process.arch}` : undefined;
  if (why) return (filterProbed = { prefix: [], layers: [], gaps: [filterGap(why)] });
  const prefix = filterPrefix(tools.perl!, arch!);
  const works = probeSyscallFilter(prefix);
  filterProbed = works === true ? { prefix, layers: [FILTER_LAYER], gaps: [] } : { prefix: [], layers: [], gaps: [filterGap(works)] };
  return filterProbed;
}

function filterGap(why: string): string {
  const sockets = permissionCoversNetwork()
    ? 'Node refuses it sockets, but nothing stops writes through V8 outside the permission model'
    : `on Node ${process.version} a child may connect to unix sockets and listen on socket paths it may reach, and V8 may write where it may write`;
  return `a syscall filter (${why}): ${sockets}`;
}
