/**
 * The submission's import under `npm test`, with the grader's per-test limit. withinLimit.ts stops a
 * call that never returns, but an import is asynchronous: vite fetches the file, then runs its top
 * level in the test's thread, where no watchdog of node:vm reaches. A file whose top level never
 * finishes (`for (;;)` at the bottom of index.ts, a test loop left in) kept `npm test` on its RUN
 * line for ever, while the grader said every test timed out while loading.
 *
 * So a thread of its own watches the import. The test's thread is stuck and vitest cannot report,
 * so when the import has spent the limit in CPU time of that thread (or WALL_FACTOR times it in wall
 * time, a top level that sleeps or waits for ever; wall time charged as the machine's load allows,
 * lib/sandbox/busyClock.ts, since the import also waits on vitest's main process) it writes the grader's reason on stderr and ends
 * the run: npm test exits with an error instead of hanging, in the grader's words.
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { didNotLoad, PER_TEST_LIMIT_MS } from '../grading/hangWords';
import { WALL_FACTOR } from '../sandbox/childClock';

/**
 * The watching thread: plain JavaScript, evaluated as is (vite does not transform a worker's
 * source). It reads the watched thread's utime and stime from /proc (in USER_HZ ticks, 100 a
 * second), or only the wall clock where /proc says nothing (not Linux).
 */
const WATCHER = `
const { workerData, parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { stat, limitMs, wallMs, message } = workerData;
const cpuMs = () => {
  try {
    const fields = fs.readFileSync(stat, 'latin1');
    const rest = fields.slice(fields.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) * 10;
  } catch {
    return undefined;
  }
};
// lib/sandbox/busyClock.ts fairShare, restated: this source is evaluated as is, with no imports of ours.
const cores = require('node:os').availableParallelism();
const fairShare = () => {
  try {
    const runnable = Number(fs.readFileSync('/proc/loadavg', 'latin1').split(' ')[3].split('/')[0]);
    return runnable > 0 ? Math.min(1, cores / runnable) : 1;
  } catch {
    return 1;
  }
};
const cpuAtStart = cpuMs();
let wall = 0;
let last = Date.now();
const timer = setInterval(() => {
  const cpu = cpuAtStart === undefined ? undefined : cpuMs();
  const spent = cpu === undefined ? 0 : cpu - cpuAtStart;
  const now = Date.now();
  wall += (now - last) * fairShare();
  last = now;
  if (spent < limitMs && wall < wallMs) return;
  fs.writeSync(2, message);
  // SIGTERM lets vitest end its run; a run that does not end within a second is killed.
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1000);
}, 50);
parentPort.once('message', () => {
  clearInterval(timer);
  parentPort.close();
});
`;

/** What npm test says as it stops: the grader's reason for every test, and why there is no report. */
export function stoppedWords(entryName: string, limitMs: number): string {
  return [
    '',
    `npm test stopped: ${entryName}: ${didNotLoad(limitMs)}`,
    "In the grader every test fails: the first with this reason, the others naming it. npm test cannot report them: the file's top level still runs in its thread.",
    '',
  ].join('\n');
}

/** This thread's /proc entry (Linux), where the watcher reads the time it spends. */
function ownStat(): string {
  try {
    return `/proc/${fs.readlinkSync('/proc/thread-self')}/stat`;
  } catch {
    return '';
  }
}

/** `load()` (an import of the submission) watched: past the limit, npm test stops in the grader's words. */
export async function watchedLoad<T>(load: () => Promise<T>, entryName: string, limitMs = PER_TEST_LIMIT_MS): Promise<T> {
  let watcher: Worker | undefined;
  try {
    watcher = new Worker(WATCHER, {
      eval: true,
      workerData: { stat: ownStat(), limitMs, wallMs: WALL_FACTOR * limitMs, message: stoppedWords(entryName, limitMs) },
      stdout: false,
      stderr: false,
    });
    // It never keeps a run alive that has ended.
    watcher.unref();
  } catch {
    // No thread to spare (a limit on threads): the import runs as it did before there was a watcher.
  }
  try {
    return await load();
  } finally {
    watcher?.postMessage('done');
  }
}
