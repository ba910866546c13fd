/**
 * A root folder of its own for children that run without a mount namespace (root in Docker
 * without CAP_SYS_ADMIN): `chroot` into a folder that holds only what a child needs (the Node
 * binary and the shared libraries it links, setpriv to drop to the child's uid inside, the child
 * runtime and seedrandom). Nothing else of the machine exists for the child: not the project (the
 * reference, hidden fixtures, .git, caches of transpiled code), not the batch's submissions or
 * results, not /tmp, not /proc. It is an allow-list by construction, where hiding by file modes
 * would be a deny-list over the instructor's folders. Docker's default capabilities include
 * CAP_SYS_CHROOT; the child drops to its own uid inside, and an unprivileged process cannot leave a
 * chroot.
 *
 * The folder is built once per set of inputs (a hash of them names it) under node_modules/.cache,
 * owned by root, every file read-only to others; the Node binary is hard-linked when it can be.
 * It is also the child's working folder: it holds no folder the child may write and no socket, FIFO,
 * device or link (checked each time it is used), so nothing a child does there outlives it.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Jail {
  /** The folder that becomes `/` for the child. */
  root: string;
  /** Paths as the child sees them, inside the jail. */
  node: string;
  setpriv: string;
  runtimeRoot: string;
  childEntry: string;
}

export interface JailInputs {
  /** The child runtime folder (lib/sandbox/build.ts) and its entry inside it. */
  runtimeRoot: string;
  childEntry: string;
  /** The seedrandom package folder: the runtime requires it. */
  seedrandom: string;
  node: string;
  setpriv: string;
  /** Where jails are kept (one subfolder per hash). */
  cacheDir: string;
}

const RUNTIME = '/runtime';

/** Absolute paths of the shared libraries a binary loads, the dynamic loader included, from `ldd`. */
export function sharedLibraries(binary: string): string[] | string {
  const run = spawnSync('ldd', [binary], { encoding: 'utf8' });
  if (run.error) return `ldd could not run (${run.error.message})`;
  if (/not a dynamic executable/.test(run.stdout + run.stderr)) return [];
  if (run.status !== 0) return `ldd ${path.basename(binary)} failed: ${(run.stderr || run.stdout).trim().split('\n')[0]}`;
  if (/=> not found/.test(run.stdout)) return `${path.basename(binary)} needs a library that is not installed`;
  return [...run.stdout.matchAll(/(?:=>\s*|^\s*)(\/\S+)\s+\(0x/gm)].map((m) => m[1]);
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** Places `from` at `to`: a hard link when the file system allows one (Node is ~100 MB), else a copy. */
function place(link: string, to: string, mode: number): void {
  // A library path is often a symbolic link (libc.so.6 → libc-2.36.so): the jail gets the file itself.
  const from = fs.realpathSync(link);
  fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o755 });
  try {
    fs.linkSync(from, to);
    if ((fs.statSync(to).mode & 0o777) === mode) return;
    fs.rmSync(to); // a link shares the mode; this file must have its own
  } catch {
    // another file system, or links refused: copy
  }
  fs.copyFileSync(from, to);
  fs.chmodSync(to, mode);
}

/** Every folder of the jail readable and searchable by others, whatever the umask of the root that built it. */
function openFolders(root: string): void {
  fs.chmodSync(root, 0o755);
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) fs.chmodSync(path.join(entry.parentPath, entry.name), 0o755);
  }
}

/** Builds (or finds) the jail for these inputs; a string says why it cannot be built here. */
export function buildJail(inputs: JailInputs): Jail | string {
  const node = fs.realpathSync(inputs.node);
  const setpriv = fs.realpathSync(inputs.setpriv);
  const libraries = [sharedLibraries(node), sharedLibraries(setpriv)];
  for (const libs of libraries) if (typeof libs === 'string') return libs;
  const libs = [...new Set((libraries as string[][]).flat())].sort();
  const runtimeFiles = filesUnder(inputs.runtimeRoot).sort();
  const seedrandomFiles = filesUnder(inputs.seedrandom).sort();
  const identity = createHash('sha256');
  for (const file of [node, setpriv, ...libs]) {
    const stat = fs.statSync(file);
    identity.update(`${file}\0${stat.size}\0${stat.mtimeMs}\0${stat.ino}\n`);
  }
  // The runtime folder's name is already a hash of its sources.
  identity.update([inputs.runtimeRoot, inputs.seedrandom, ...runtimeFiles, ...seedrandomFiles].join('\0'));
  const root = path.join(inputs.cacheDir, `jail-${identity.digest('hex').slice(0, 16)}`);
  const jail: Jail = {
    root,
    node: '/node',
    setpriv: '/setpriv',
    runtimeRoot: RUNTIME,
    childEntry: path.posix.join(RUNTIME, path.relative(inputs.runtimeRoot, fs.realpathSync(inputs.childEntry)).split(path.sep).join('/')),
  };
  if (fs.existsSync(path.join(root, 'node'))) return jailProblem(root) ?? jail;

  const staging = `${root}.${process.pid}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  try {
    place(node, path.join(staging, 'node'), 0o755);
    place(setpriv, path.join(staging, 'setpriv'), 0o755);
    for (const lib of libs) place(lib, path.join(staging, lib), 0o755);
    for (const file of runtimeFiles) place(file, path.join(staging, 'runtime', path.relative(inputs.runtimeRoot, file)), 0o644);
    for (const file of seedrandomFiles) {
      place(file, path.join(staging, 'runtime', 'node_modules', 'seedrandom', path.relative(inputs.seedrandom, file)), 0o644);
    }
    openFolders(staging);
    fs.renameSync(staging, root);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    // Another grader built the same jail first: use theirs.
    if (fs.existsSync(path.join(root, 'node'))) return jailProblem(root) ?? jail;
    return `its root folder could not be built (${(err as Error).message})`;
  }
  return jailProblem(root) ?? jail;
}

/**
 * Why a child could leave something in the jail, or undefined: a folder or file that someone but its
 * owner may write (no child owns any), or anything but a regular file or a folder.
 */
export function jailProblem(root: string): string | undefined {
  const queue = [root];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const stat = fs.lstatSync(file);
    const where = path.relative(root, file) || '/';
    if (!stat.isFile() && !stat.isDirectory()) return `its root folder holds ${where}, which is neither a file nor a folder`;
    if (stat.mode & 0o022) return `its root folder holds ${where}, which others may write`;
    if (stat.isDirectory()) for (const name of fs.readdirSync(file)) queue.push(path.join(file, name));
  }
  return undefined;
}
