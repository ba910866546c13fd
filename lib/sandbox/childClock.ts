/**
 * The time a child is charged for a call. On a shared machine (a CI runner, a Gradescope host, a
 * batch of many children on two cores) a child's wall clock runs while it waits for a CPU and
 * while the grader is busy with someone else's bytes: timing calls by the wall clock turned an
 * honest function into a "timeout" whenever the machine was loaded. So a call is charged the CPU
 * time its own processes spent (every thread, read from /proc), which load does not inflate.
 *
 * A hang that sleeps instead of spinning (Atomics.wait) spends no CPU: it is charged its wall time
 * divided by WALL_FACTOR, so it still ends, at WALL_FACTOR × the limit. That wall time leaves out
 * what the child spent runnable but waiting for a CPU (the run-queue delay the kernel counts in
 * /proc/<pid>/schedstat): a child starved by load is neither spinning nor sleeping, and its wait is
 * the machine's, not its own. Where /proc cannot be read (not Linux), the charge is the wall time.
 * npm test charges a call made in its own thread the same way (ThreadClock).
 */
import fs from 'node:fs';

/** A sleeping call ends at this many times its limit of wall time; a spinning one at its limit of CPU. */
export const WALL_FACTOR = 4;

/** Linux reports utime and stime in USER_HZ ticks, which the kernel ABI fixes at 100 per second. */
const MS_PER_TICK = 10;

/**
 * One buffer for every read: /proc reports its files' size as 0, so fs.readFileSync would allocate
 * 64 KiB for each of the four reads of every call, and that garbage (gigabytes in a batch) kept the
 * grading process's garbage collector busy.
 */
const scratch = Buffer.allocUnsafe(16 * 1024);

function readText(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    let length = 0;
    for (let n; length < scratch.length && (n = fs.readSync(fd, scratch, length, scratch.length - length, null)) > 0;) length += n;
    return scratch.toString('latin1', 0, length);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The process and all its descendants, each thread's children included; [root] when /proc says nothing. */
export function processTree(root: number): number[] {
  const tree: number[] = [];
  const queue = [root];
  while (queue.length && tree.length < 64) {
    const pid = queue.shift()!;
    tree.push(pid);
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      for (const child of (readText(`/proc/${pid}/task/${tid}/children`) ?? '').split(' ')) {
        const n = Number(child);
        if (Number.isInteger(n) && n > 0 && !tree.includes(n) && !queue.includes(n)) queue.push(n);
      }
    }
  }
  return tree;
}

/** CPU milliseconds the processes have spent, user and system, every thread; undefined when none can be read. */
export function cpuMs(pids: readonly number[]): number | undefined {
  let total: number | undefined;
  for (const pid of pids) {
    const stat = readText(`/proc/${pid}/stat`);
    if (!stat) continue;
    // The command name may hold spaces and parentheses (a child can set process.title): fields
    // are counted from the last ')'. utime and stime are fields 14 and 15 of the whole line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (Number.isFinite(ticks)) total = (total ?? 0) + ticks * MS_PER_TICK;
  }
  return total;
}

/**
 * Whether any thread of the processes is runnable (state R: on a CPU or waiting for one). The
 * kernel adds a wait to a thread's schedstat only when the wait ends, when the thread gets a CPU:
 * while it waits, that wait is in nobody's figures yet. Every thread, not only the main one: a
 * main thread blocked on a helper thread (V8's garbage collector, its compiler) sleeps while the
 * helper waits for a CPU.
 */
export function anyRunnable(pids: readonly number[]): boolean {
  return pids.some((pid) => {
    let tasks: string[];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      return false;
    }
    return tasks.some((tid) => {
      const stat = readText(`/proc/${pid}/task/${tid}/stat`);
      return stat !== undefined && stat.charAt(stat.lastIndexOf(')') + 2) === 'R';
    });
  });
}

/**
 * Milliseconds the processes' main threads have spent runnable, waiting for a CPU (the second field
 * of /proc/<pid>/schedstat, in ns); undefined when the kernel does not keep it.
 */
export function waitedMs(pids: readonly number[]): number | undefined {
  let total: number | undefined;
  for (const pid of pids) {
    const delay = Number((readText(`/proc/${pid}/schedstat`) ?? '').split(' ')[1]);
    if (Number.isFinite(delay)) total = (total ?? 0) + delay / 1e6;
  }
  return total;
}

/** Measures one call of a child whose processes are `pids`. */
export class CallClock {
  private readonly wallStart = Date.now();
  private readonly cpuStart: number | undefined;
  private readonly waitStart: number | undefined;
  /** The wall-time charge as last read while no thread was runnable, when it is exact. */
  private sleptCharge = 0;

  constructor(private readonly pids: readonly number[]) {
    this.cpuStart = cpuMs(pids);
    this.waitStart = waitedMs(pids);
  }

  /** Wall milliseconds since the call began. */
  wall(): number {
    return Date.now() - this.wallStart;
  }

  /**
   * What the call is charged so far: its CPU time, or, if that is more, its wall time less its wait
   * for a CPU, over WALL_FACTOR. That second figure is taken only when no thread is runnable: a
   * thread waiting for a CPU has not had its current wait counted yet (see anyRunnable), and on a
   * loaded machine that wait, seconds long for a starved child, was charged as if it had slept.
   * While one is runnable, the figure last read stands (it only grows, and it grows again once the
   * thread sleeps or ends); its CPU time goes on being charged.
   */
  charged(): number {
    if (this.cpuStart === undefined) return this.wall();
    // Waits read before the wall clock, as they were read after it at the start: every wait counted
    // then lies within the wall time, so a wait that ends between the two reads is never taken
    // from a wall time that does not hold it (a sleep charged less than its quarter).
    const waitedNow = this.waitStart === undefined ? undefined : waitedMs(this.pids);
    const wall = this.wall();
    // A process that has exited is no longer read: what it spent stays spent, never negative.
    const now = cpuMs(this.pids);
    const cpu = now === undefined ? 0 : Math.max(0, now - this.cpuStart);
    const waited = waitedNow === undefined ? 0 : Math.min(wall, Math.max(0, waitedNow - this.waitStart!));
    if (!anyRunnable(this.pids)) this.sleptCharge = Math.max(this.sleptCharge, (wall - waited) / WALL_FACTOR);
    return Math.max(cpu, this.sleptCharge);
  }
}

/** The calling thread's CPU ms: Node's own count where it has one (22.19, 23.9 and later), else /proc's. */
function threadCpuMs(): number | undefined {
  const own = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (own) {
    const { user, system } = own();
    return (user + system) / 1000;
  }
  const stat = readText('/proc/thread-self/stat');
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * MS_PER_TICK : undefined;
}

/** Milliseconds the calling thread has spent runnable, waiting for a CPU; undefined where the kernel does not say. */
function threadWaitedMs(): number | undefined {
  const delay = Number((readText('/proc/thread-self/schedstat') ?? '').split(' ')[1]);
  return Number.isFinite(delay) ? delay / 1e6 : undefined;
}

/**
 * Measures one call made in this thread (npm test's, lib/grading/inProcess.ts), charged as a
 * child's call is: its CPU time, or its wall time less its wait for a CPU over WALL_FACTOR when it
 * slept. Read once the call has ended, while this thread runs: every wait it had is counted by then.
 * Only this thread's CPU is counted; V8's helper threads (its concurrent marking) are not, where
 * the grader's child has none (--single-threaded), so garbage-heavy code is charged a little less here.
 */
export class ThreadClock {
  private readonly wallStart = performance.now();
  private readonly cpuStart = threadCpuMs();
  private readonly waitStart = threadWaitedMs();

  charged(): number {
    // Waits before the wall clock, as in CallClock.charged: a preemption between the two reads
    // (this thread is the one measured) otherwise took its wait from a wall time without it.
    const waitedNow = this.waitStart === undefined ? undefined : threadWaitedMs();
    const wall = performance.now() - this.wallStart;
    const cpu = this.cpuStart === undefined ? undefined : threadCpuMs();
    if (cpu === undefined) return wall;
    const waited = waitedNow === undefined ? 0 : Math.min(wall, Math.max(0, waitedNow - this.waitStart!));
    return Math.max(cpu - this.cpuStart!, (wall - waited) / WALL_FACTOR);
  }
}
