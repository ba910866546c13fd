/**
 * Wall time as it would have passed on a machine that is not busy: each interval counts in the
 * share of a CPU the machine could give a task, its cores over its runnable tasks (the
 * instantaneous count of /proc/loadavg), at most 1. A limit on a wait that is not this process's
 * own CPU work (a contained child starting, an import waiting on vitest's main process) then holds
 * on a busy machine, where plain wall time ran out: in a self-test run beside two others, a catalogue
 * submission's import passed the 40 s wall limit of npm test's load watchdog and stopped the run,
 * and a contained child took more than 30 s to start. Where /proc says nothing, time counts whole.
 */
import fs from 'node:fs';
import os from 'node:os';

/** The share of a CPU a runnable task gets now: cores / runnable tasks, at most 1. */
export function fairShare(): number {
  try {
    const runnable = Number(fs.readFileSync('/proc/loadavg', 'latin1').split(' ')[3].split('/')[0]);
    return runnable > 0 ? Math.min(1, os.availableParallelism() / runnable) : 1;
  } catch {
    return 1;
  }
}

/** How often the charged time is brought up to date. */
const TICK_MS = 250;

/** Calls `onExpire` once `limitMs` of charged time has passed (see above); `clear()` stops it. */
export function busyTimer(limitMs: number, onExpire: () => void): { clear(): void } {
  let charged = 0;
  let last = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    charged += (now - last) * fairShare();
    last = now;
    if (charged < limitMs) return;
    clearInterval(timer);
    onExpire();
  }, TICK_MS);
  return { clear: () => clearInterval(timer) };
}
