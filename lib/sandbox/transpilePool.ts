/**
 * Transpiling off the grader's event loop: a few worker threads (one per core at most) run
 * transpile.ts, each job under a time limit. A job past its limit has its worker terminated (V8
 * stops even a tight loop) and the submission fails to load; the grader's timers, and the other
 * submissions of a batch, never wait on TypeScript. Idle workers do not keep the process alive.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { buildChildRuntime } from './build';
import type { PreparedSubmission, TranspileJob } from './transpile';

export type TranspileOutcome =
  | { kind: 'done'; prepared: PreparedSubmission }
  | { kind: 'timeout' }
  /** The worker died (out of memory) or threw: the message says how. */
  | { kind: 'failed'; message: string };

/** TypeScript's heap for one submission of at most a few MiB of code. */
const WORKER_HEAP_MB = 512;

const idle: Worker[] = [];
const waiting: (() => void)[] = [];
let started = 0;

function newWorker(): Worker {
  started++;
  const worker = new Worker(buildChildRuntime().transpiler, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  // An 'error' with no listener would throw in the grader; the job's own listener reports it.
  worker.on('error', () => undefined);
  return worker;
}

async function acquire(): Promise<Worker> {
  for (;;) {
    const worker = idle.pop();
    if (worker) return worker;
    if (started < os.availableParallelism()) return newWorker();
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

function release(worker: Worker | undefined): void {
  if (worker) {
    worker.unref();
    idle.push(worker);
  } else started--;
  waiting.shift()?.();
}

/** Transpiles one submission in a worker; `limitMs` bounds the job, not the wait for a free worker. */
export async function transpileInWorker(job: TranspileJob, limitMs: number): Promise<TranspileOutcome> {
  const worker = await acquire();
  worker.ref();
  return new Promise<TranspileOutcome>((resolve) => {
    const finish = (outcome: TranspileOutcome, keep: boolean) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (!keep) void worker.terminate();
      release(keep ? worker : undefined);
      resolve(outcome);
    };
    const onMessage = (reply: { ok: true; prepared: PreparedSubmission } | { ok: false; message: string }) =>
      finish(reply.ok ? { kind: 'done', prepared: reply.prepared } : { kind: 'failed', message: reply.message }, true);
    const onError = (err: Error) => finish({ kind: 'failed', message: err.message }, false);
    const onExit = (code: number) => finish({ kind: 'failed', message: `the transpiler stopped (exit code ${code})` }, false);
    const timer = setTimeout(() => finish({ kind: 'timeout' }, false), limitMs);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(job);
  });
}
