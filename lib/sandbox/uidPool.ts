/**
 * A uid of its own for each concurrent child, when the grader is root but may not create
 * namespaces (Docker's default): `kill(-1)`, ptrace and another process's /proc entries reach
 * only processes of the same uid, so a child with a uid nobody else has reaches no classmate and
 * not the grader.
 *
 * Each grading process takes a block of BLOCK uids derived from its own pid: two graders alive
 * in one PID namespace have different pids, so their blocks never overlap, without lock files.
 * A uid is handed out only after every process still running under it was killed (a child that
 * escaped its permission model could otherwise wait there for the next student to get its uid).
 */
import fs from 'node:fs';

/** Uids per grading process: concurrent children are at most two per job (one dying, one starting). */
export const BLOCK = 64;
/** Far from any system, user, systemd dynamic (61184–65519) or container range, when the kernel maps it. */
const PREFERRED_BASE = 1_000_000_000;
/** The highest pid Linux allows (pid_max may be set to at most 2^22). */
const PID_MAX = 2 ** 22;

/** The uid ranges this user namespace maps ([first, count] pairs), from /proc/self/uid_map. */
export function mappedUids(text = readOr('/proc/self/uid_map', '0 0 4294967295')): [number, number][] {
  return text
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter((fields) => fields.length === 3 && fields.every(Number.isSafeInteger))
    .map(([inside, , count]) => [inside, count] as [number, number]);
}

function readOr(file: string, fallback: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

/**
 * The first uid of this process's block: above PREFERRED_BASE when the namespace maps that far
 * (Docker without user namespaces maps every uid), else blocks at the top of the largest range
 * below nobody (a rootless container maps about 65536), chosen by pid: graders of one such
 * container may then share a block, which docs/security.md states.
 */
export function blockBase(pid: number, ranges = mappedUids()): number | undefined {
  const covers = (first: number, last: number) => ranges.some(([start, count]) => start <= first && last < start + count);
  const preferred = PREFERRED_BASE + (pid % PID_MAX) * BLOCK;
  if (covers(preferred, preferred + BLOCK - 1)) return preferred;
  const low = ranges
    .map(([start, count]) => [Math.max(start, 1000), Math.min(start + count, 65534)] as const)
    .filter(([first, end]) => end - first >= BLOCK)
    .sort((a, b) => b[1] - b[0] - (a[1] - a[0]))[0];
  if (!low) return undefined;
  const blocks = Math.floor((low[1] - low[0]) / BLOCK);
  return low[1] - BLOCK * (1 + (pid % Math.min(blocks, 16)));
}

/** Pids of the live processes whose real or effective uid is in `uids`, from /proc (this PID namespace's view). */
export function processesOf(uids: ReadonlySet<number>): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = readOr(`/proc/${entry}/status`, '');
    // A zombie runs nothing: it is only waiting for its parent to read its exit status.
    if (/^State:\s+[ZX]/m.test(status)) continue;
    const ids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
    if (ids && (uids.has(Number(ids[1])) || uids.has(Number(ids[2])))) pids.push(Number(entry));
  }
  return pids;
}

/** Kills every process running under these uids, again until none is left (a forking one is capped by RLIMIT_NPROC). */
export function killAllOf(uids: ReadonlySet<number>): void {
  for (let round = 0; round < 20; round++) {
    const pids = processesOf(uids);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
}

export class UidPool {
  private readonly free: number[];
  private readonly held = new Set<number>();

  constructor(readonly base: number, readonly size = BLOCK) {
    this.free = Array.from({ length: size }, (_, i) => base + i);
    // Left by a grader that died with this pid before us: nothing of theirs may meet our children.
    killAllOf(new Set(this.free));
  }

  /** A uid no running process has; throws when every uid of the block is taken. */
  acquire(): number {
    const uid = this.free.shift();
    if (uid === undefined) throw new Error(`all ${this.size} uids for contained children (from ${this.base}) are in use: grade with fewer --jobs`);
    this.held.add(uid);
    return uid;
  }

  /** Call once the child that had `uid` has exited: whatever it left running is killed first. */
  release(uid: number): void {
    if (!this.held.delete(uid)) return;
    killAllOf(new Set([uid]));
    this.free.push(uid);
  }
}

let processPool: UidPool | undefined;

/**
 * The one pool of this process: every command that gives children uids of their own draws from it,
 * however many times containment is prepared (two pools of one block would hand out one uid twice,
 * and the second would kill the first's children when it reaped the block).
 */
export function uidPoolOfThisProcess(base: number): UidPool {
  if (processPool && processPool.base !== base) throw new Error(`a uid pool from ${processPool.base} exists already; asked for one from ${base}`);
  return (processPool ??= new UidPool(base));
}
