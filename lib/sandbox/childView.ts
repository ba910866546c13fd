/**
 * What of the machine a child in a mount namespace of its own (the `namespaces` and
 * `user-namespaces` settings) sees where it could write or find a socket. Found on this machine,
 * not from a fixed list alone: the folders where processes keep sockets and temporary files (/tmp,
 * /var/tmp, /dev/shm, /run and /var/run, /dev/mqueue, the user's runtime folder), every folder
 * writable by everyone within a few levels of `/` and every mount whose root is, each covered with
 * an empty read-only tmpfs; and every socket listed in /proc/net/unix that no cover hides, masked
 * one by one (/dev/null bound over it: connecting is refused). The child's working folder is a tmpfs
 * of its own, read-only and empty, gone with its namespace.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where processes keep sockets and temporary files, wherever a walk would find them. */
const USUAL = ['/tmp', '/var/tmp', '/dev/shm', '/run', '/var/run', '/dev/mqueue', '/run/lock', '/var/lock'];
/** File systems of the kernel's own: a new /proc is mounted for the child; /sys holds neither sockets nor folders others may write. */
const NOT_WALKED = new Set(['/proc', '/sys']);
/** The walk for folders writable by everyone: breadth first, this deep, at most this many folders (a few hundred ms). */
const WALK_DEPTH = 4;
const WALK_FOLDERS = 5000;

const inside = (dir: string, file: string) => file === dir || file.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

function realDir(dir: string): string | undefined {
  try {
    return fs.statSync(dir).isDirectory() ? fs.realpathSync(dir) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Folders writable by everyone, as a breadth-first walk from `/` finds them (folders others may not
 * search are not entered: nobody else reaches below them), and the roots of mounts that are.
 */
export function worldWritableFolders({ root = '/', depth = WALK_DEPTH, budget = WALK_FOLDERS } = {}): string[] {
  const found = new Set<string>();
  const queue: [string, number][] = [[root, 0]];
  for (let seen = 0; queue.length > 0 && seen < budget; seen++) {
    const [dir, level] = queue.shift()!;
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(dir);
    } catch {
      continue;
    }
    if (!stat.isDirectory()) continue;
    if (stat.mode & 0o002) {
      found.add(dir);
      continue;
    }
    if (!(stat.mode & 0o001) || level >= depth) continue;
    try {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const child = path.join(dir, entry.name);
        if (entry.isDirectory() && !NOT_WALKED.has(child)) queue.push([child, level + 1]);
      }
    } catch {
      // unreadable: nobody else lists it either
    }
  }
  for (const mount of mountPoints()) {
    try {
      if (inside(root, mount) && !inside('/proc', mount) && !inside('/sys', mount) && fs.statSync(mount).mode & 0o002) found.add(mount);
    } catch {
      // gone since
    }
  }
  return [...found].sort();
}

/** Mount points of this process's mount namespace (/proc/self/mountinfo, octal escapes decoded). */
export function mountPoints(): string[] {
  try {
    return fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').flatMap((line) => {
      const field = line.split(' ')[4];
      return field ? [field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)))] : [];
    });
  } catch {
    return [];
  }
}

/** Paths of the unix sockets bound in this network namespace (/proc/net/unix; abstract ones have none). */
export function socketPaths(): string[] {
  try {
    return fs.readFileSync('/proc/net/unix', 'utf8').split('\n').slice(1).flatMap((line) => {
      const file = line.trim().split(/\s+/).slice(7).join(' ');
      return file.startsWith('/') ? [file] : [];
    });
  } catch {
    return [];
  }
}

export interface ChildView {
  /** Folders covered by an empty read-only tmpfs, outermost only. */
  covered: string[];
  /** Sockets outside every covered folder, each masked. */
  masked: string[];
  /** Folders that should be covered but hold what the child needs (a project under /tmp): left as they are. */
  uncovered: string[];
}

/**
 * The view for a child whose own files are `needed` (its runtime, Node, the tools that start it):
 * `hide` (a batch's submissions and results) and every folder above, less any folder that holds a
 * needed file or is `/`.
 */
export function childView(hide: readonly string[], needed: readonly string[]): ChildView {
  const runtimeDir = process.env.XDG_RUNTIME_DIR ?? (process.getuid ? `/run/user/${process.getuid()}` : undefined);
  const candidates = [...hide, os.tmpdir(), ...USUAL, ...(runtimeDir ? [runtimeDir] : []), ...worldWritableFolders()];
  const real = [...new Set(candidates.flatMap((dir) => realDir(dir) ?? []))];
  const kept = real.filter((dir) => dir !== path.parse(dir).root && !needed.some((file) => inside(dir, file)) && !inside('/proc', dir));
  // A folder inside another covered one is covered with it (and its mount point would be gone).
  const covered = kept.filter((dir) => !kept.some((other) => other !== dir && inside(other, dir))).sort();
  const masked = [...new Set(socketPaths())].filter((file) => !covered.some((dir) => inside(dir, file)) && fs.existsSync(file)).sort();
  const uncovered = real.filter((dir) => !covered.some((other) => inside(other, dir)) && !inside('/proc', dir)).sort();
  return { covered, masked, uncovered };
}

/**
 * An empty folder no child may write in (mode 0555; its owner, the grader, creates nothing in it):
 * the child's working folder and where Node would write diagnostics. In a mount namespace each child
 * gets a tmpfs of its own over it.
 */
export function emptyFolder(parent: string): string {
  const dir = path.join(parent, 'child-cwd');
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(dir);
  } catch {
    // not there yet
  }
  if (stat?.isDirectory() && (stat.mode & 0o777) === 0o555 && fs.readdirSync(dir).length === 0) return fs.realpathSync(dir);
  // Anything else there (a link, a folder with files) is not what this function made: start again.
  if (stat?.isDirectory()) fs.chmodSync(dir, 0o755);
  if (stat) fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o555);
  return fs.realpathSync(dir);
}
