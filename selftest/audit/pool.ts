/**
 * Worker threads that grade mutants side by side (the machine's cores), each mutant under a
 * watchdog: a mutant that holds its worker past the limit (an endless loop the per-call limit did
 * not reach, memory growing) is given up, its worker ended and replaced.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { RUN_TS } from '../../lib/paths';
import { nodeMs } from '../../lib/sandbox/nodeMs';
import type { CaseOutcome } from './run';
import type { Job } from './worker';

export type JobResult = CaseOutcome[] | string;

const BOOT = `require(${JSON.stringify(RUN_TS)});
require(${JSON.stringify(path.join(__dirname, 'worker.ts'))});`;

interface Slot {
  worker: Worker;
  ready: Promise<void>;
}

/** Each job's result, and the CPU time the workers spent on them all (ms). */
export async function runPool(
  jobs: readonly Job[], options: { workers: number; limitMs: number; watchdogMs: number; progress?: (done: number) => void },
): Promise<{ results: Map<string, JobResult>; cpuMs: number }> {
  const results = new Map<string, JobResult>();
  let cpuMs = 0;
  let next = 0;
  const start = (): Slot => {
    const worker = new Worker(BOOT, { eval: true, workerData: { limitMs: options.limitMs }, resourceLimits: { maxOldGenerationSizeMb: 2048 } });
    const ready = new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    return { worker, ready };
  };
  const lane = async () => {
    let slot = start();
    await slot.ready;
    while (next < jobs.length) {
      const job = jobs[next++];
      const result = await new Promise<JobResult>((resolve) => {
        const timer = setTimeout(() => resolve(`gave up after ${options.watchdogMs / 1000} s`), nodeMs(options.watchdogMs));
        const done = (r: JobResult) => {
          clearTimeout(timer);
          slot.worker.off('message', onMessage);
          slot.worker.off('error', onError);
          resolve(r);
        };
        const onMessage = (m: { id: string; result: JobResult; cpuMs: number }) => {
          if (m.id !== job.id) return;
          cpuMs += m.cpuMs;
          done(m.result);
        };
        const onError = (err: Error) => done(`the worker died: ${err.message}`);
        slot.worker.on('message', onMessage);
        slot.worker.on('error', onError);
        slot.worker.postMessage(job);
      });
      results.set(job.id, result);
      options.progress?.(results.size);
      if (typeof result === 'string' && /^(gave up|the worker died)/.test(result)) {
        await slot.worker.terminate();
        slot = start();
        await slot.ready;
      }
    }
    await slot.worker.terminate();
  };
  await Promise.all(Array.from({ length: options.workers }, lane));
  return { results, cpuMs };
}
