/**
 * Transpiling off the grader's event loop: a few worker threads (one per core at most) run
 * transpile.ts, each job under a time limit. A job past its limit has its worker terminated (V8
 * stops even a tight loop) and the submission fails to load; the grader's timers, and the other
 * submissions of a batch, never wait on TypeScript. Idle workers do not keep the process alive.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { GraderError } from '../errors';
import { buildChildRuntime } from './build';
import { nodeMs } from './nodeMs';
import type { PreparedSubmission, TranspileJob } from './transpile';

export type TranspileOutcome =
  | { kind: 'done'; prepared: PreparedSubmission }
  | { kind: 'timeout' }
  /** The worker died (out of memory) or threw: the message says how. */
  | { kind: 'failed'; message: string };

/** TypeScript's heap for one submission of at most a few MiB of code. */
const WORKER_HEAP_MB = 512;

/** Loading TypeScript into a new worker takes a second or two, longer on a loaded machine. */
const WORKER_START_LIMIT_MS = 60_000;

/** A worker that could not start is the grader's failure, never the submission's. */
export class TranspilerStartError extends GraderError {}

const idle: Worker[] = [];
const waiting: (() => void)[] = [];
let started = 0;

/** A worker with TypeScript loaded: the job's time limit must not pay for the start. */
function newWorker(): Promise<Worker> {
  started++;
  const worker = new Worker(buildChildRuntime().transpiler, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  // An 'error' with no listener would throw in the grader; the job's own listener reports it.
  worker.on('error', () => undefined);
  return new Promise<Worker>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      started--;
      void worker.terminate();
      reject(new TranspilerStartError(`the transpiling worker did not start: ${why}`));
    };
    const timer = setTimeout(() => fail(`not ready within ${WORKER_START_LIMIT_MS / 1000} s`), WORKER_START_LIMIT_MS);
    worker.once('message', () => {
      clearTimeout(timer);
      worker.removeAllListeners('exit');
      resolve(worker);
    });
    worker.once('exit', (code) => fail(`exit code ${code}`));
  });
}

/**
 * A job takes milliseconds and a new worker a second of loading TypeScript: a job that finds every
 * worker busy waits this long for one before another is started. A stalled job still gets a
 * second worker started after it, so it holds up no one for longer than this.
 */
const PATIENCE_MS = 200;

async function acquire(): Promise<Worker> {
  let patient = started > 0;
  for (;;) {
    const worker = idle.pop();
    if (worker) return worker;
    if (!patient && started < os.availableParallelism()) return newWorker();
    await new Promise<void>((resolve) => {
      if (!patient) return waiting.push(resolve);
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(wake), 1);
        resolve();
      }, PATIENCE_MS);
      waiting.push(wake);
    });
    patient = false;
  }
}

/** Starts one worker ahead of the first submission (a batch's first results then wait on nobody). */
export async function warmTranspiler(): Promise<void> {
  if (started > 0) return;
  release(await newWorker());
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
    const timer = setTimeout(() => finish({ kind: 'timeout' }, false), nodeMs(limitMs));
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(job);
  });
}
