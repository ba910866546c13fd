/**
 * How a child that runs student code is started, with every containment this machine allows:
 * - Node's permission model: reads only of the child runtime and the one package it loads; no
 *   writes, no child processes, no workers, no native addons;
 * - a memory cap that covers typed arrays too (RLIMIT_AS through prlimit; the V8 heap flag alone
 *   does not count ArrayBuffers), plus the V8 heap cap so heap exhaustion fails early;
 * - when the grader runs as root: a fresh network namespace (no network, not even loopback) and
 *   an unprivileged uid/gid, so the child can neither signal the grader nor read its files.
 * What could not be applied is listed in `missing`, for the report and docs/security.md.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface ContainmentOptions {
  /** The child runtime's root folder (lib/sandbox/build.ts) and its entry script. */
  runtimeRoot: string;
  childEntry: string;
  memoryBytes: number;
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

function onPath(tool: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, tool);
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
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
    process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission',
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
  if (isRoot && setpriv) {
    command = [setpriv, `--reuid=${UNPRIVILEGED}`, `--regid=${UNPRIVILEGED}`, '--clear-groups', '--', ...command];
  } else if (isRoot) missing.push('unprivileged user (setpriv not found): the child runs as root');
  if (isRoot && unshare) command = [unshare, '--net', '--', ...command];
  else missing.push(isRoot ? 'network isolation (unshare not found)' : 'network isolation and a separate user (the grader is not root)');
  return { file: command[0], args: command.slice(1), missing };
}
