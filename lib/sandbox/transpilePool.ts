/**
 * Reading submissions apart from the grader: oxc (native code) and TypeScript parse a submission's
 * text only in a few child processes (one per core at most; a submission graded alone, in its
 * checking process instead, lib/typecheck/run.ts), never in the grading process, where
 * a stack overflow of native code ends the whole batch with SIGSEGV. Each job has a limit of CPU time;
 * each process a heap cap and a stack of its own. A job past its limit, or a process that dies on
 * it (a crash, out of memory), is that submission's failure, naming the file it was reading; the
 * process is replaced and the next job served. Idle processes do not keep the grader alive.
 *
 * Node's IPC channel carries the jobs: only our code runs in these processes (no submission code
 * does), so what they send is what transpileWorker.ts wrote.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import os from 'node:os';
import { GraderError } from '../errors';
import { codeFile } from '../text/place';
import { buildChildRuntime } from './build';
import { CallClock } from './childClock';
import { nodeMs } from './nodeMs';
import type { PreparedSubmission, TranspileJob } from './transpile';
import type { WorkerMessage } from './transpileWorker';
import { busyTimer } from './busyClock';

export type TranspileOutcome =
  | { kind: 'done'; prepared: PreparedSubmission }
  /** `file`: the file it was reading when its time ran out, as messages name it (`student/helpers.ts`). */
  | { kind: 'timeout'; file?: string }
  /** The process died or threw on it: `message` says how, `file` as for a timeout. */
  | { kind: 'failed'; message: string; file?: string };

/** TypeScript's heap for one submission of at most a few MiB of code. */
const HEAP_MB = 512;
/**
 * V8's stack for TypeScript (KiB, three times Node's default), well inside the 8 MiB a process's
 * main thread gets: whatever the nesting bound lets through has room (docs/benchmarks.md).
 */
const STACK_KB = 3000;

/** The stack of every process that parses submissions with TypeScript (the type check's too, lib/typecheck/run.ts). */
export const TRANSPILER_STACK_FLAG = `--stack-size=${STACK_KB}`;

/** The Node flags of a transpiling process (the nesting bench probes the parsers under the same). */
export const TRANSPILER_FLAGS = [`--max-old-space-size=${HEAP_MB}`, TRANSPILER_STACK_FLAG];

/** Loading TypeScript into a new process takes a second or two, longer on a loaded machine. */
const START_LIMIT_MS = 60_000;

/** How often a job's charge is read: a runaway is stopped at most this long past its limit. */
const POLL_MS = 50;

/** A process that could not start is the grader's failure, never the submission's. */
export class TranspilerStartError extends GraderError {}

const idle: ChildProcess[] = [];
const waiting: (() => void)[] = [];
let started = 0;

const setRef = (child: ChildProcess, ref: boolean) => {
  for (const handle of [child, child.channel, child.stderr as Socket | null]) {
    if (ref) handle?.ref();
    else handle?.unref();
  }
};

/** A process with TypeScript loaded: the job's time limit must not pay for the start. */
function newProcess(): Promise<ChildProcess> {
  started++;
  const child = fork(buildChildRuntime().transpiler, [], {
    execArgv: TRANSPILER_FLAGS,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  // Only a failure to start is said with it (the process's own words, its last lines).
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
  // An 'error' with no listener would throw in the grader; the job's own listener reports it.
  child.on('error', () => undefined);
  return new Promise<ChildProcess>((resolve, reject) => {
    let failed = false;
    const fail = (why: string) => {
      if (failed) return;
      failed = true;
      timer.clear();
      started--;
      child.kill('SIGKILL');
      reject(new TranspilerStartError(`the transpiling process did not start: ${why}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-3).join(' ')}` : ''}`));
    };
    // A start is the machine's work: charged as its load allows (busyClock.ts).
    const timer = busyTimer(START_LIMIT_MS, () => fail(`not ready within ${START_LIMIT_MS / 1000} s of its share of the machine`));
    const onError = (err: Error) => fail(err.message);
    child.once('message', () => {
      timer.clear();
      child.removeAllListeners('exit');
      child.off('error', onError);
      child.stderr?.removeAllListeners('data').resume();
      resolve(child);
    });
    child.once('exit', (code, signal) => fail(signal ?? `exit code ${code}`));
    // The process could not be started at all (no 'exit' need follow).
    child.once('error', onError);
  });
}

/**
 * A job takes milliseconds and a new process a second of loading TypeScript: a job that finds
 * every process busy waits this long for one before another is started. A stalled job still gets
 * a second process started after it, so it holds up no one for longer than this.
 */
const PATIENCE_MS = 200;

/** An idle process that died (killed from outside, say) is dropped, never handed a job. */
function dropIdle(this: ChildProcess): void {
  const at = idle.indexOf(this);
  if (at < 0) return;
  idle.splice(at, 1);
  started--;
}

async function acquire(): Promise<ChildProcess> {
  let patient = started > 0;
  for (;;) {
    const child = idle.pop();
    if (child) {
      child.off('exit', dropIdle);
      return child;
    }
    if (!patient && started < os.availableParallelism()) return newProcess();
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

/** Starts one process ahead of the first submission (a batch's first results then wait on nobody). */
export async function warmTranspiler(): Promise<void> {
  if (started > 0) return;
  release(await newProcess());
}

function release(child: ChildProcess | undefined): void {
  if (child) {
    setRef(child, false);
    child.once('exit', dropIdle);
    idle.push(child);
  } else started--;
  waiting.shift()?.();
}

/**
 * Transpiles one submission in a child process; `limitMs` bounds the CPU time the job is charged,
 * not the wait for a free process. `checked` is called once the load check has passed, as TypeScript starts: a submission
 * that will run may start its child then, one that cannot load starts none.
 */
export async function transpileInChild(job: TranspileJob, limitMs: number, checked?: () => void): Promise<TranspileOutcome> {
  // A process that dies before it starts reading (killed while idle, before this process heard of
  // it) died of nothing the submission wrote: the job goes to a fresh process, once.
  const first = await attempt(job, limitMs, checked);
  return first.unread ? (await attempt(job, limitMs, checked)).outcome : first.outcome;
}

async function attempt(job: TranspileJob, limitMs: number, checked?: () => void): Promise<{ outcome: TranspileOutcome; unread: boolean }> {
  const child = await acquire();
  setRef(child, true);
  return new Promise((resolve) => {
    let reading: string | undefined;
    let transpiling = false;
    let finished = false;
    const file = () => (reading === undefined ? undefined : codeFile(job.label, reading));
    const finish = (outcome: TranspileOutcome, keep: boolean) => {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      child.off('message', onMessage);
      child.off('close', onClose);
      if (!keep) child.kill('SIGKILL');
      release(keep ? child : undefined);
      resolve({ outcome, unread: outcome.kind === 'failed' && reading === undefined });
    };
    const onMessage = (message: WorkerMessage) => {
      if ('reading' in message) {
        reading = message.reading;
        if (message.step === 'transpile' && !transpiling) {
          transpiling = true;
          checked?.();
        }
      }
      else if ('ok' in message) finish(message.ok ? { kind: 'done', prepared: message.prepared } : { kind: 'failed', message: message.message, file: file() }, true);
    };
    // A stack overflow in native code (SIGSEGV), the heap cap (SIGABRT), any other death: this job's.
    // 'close' comes after every message the process sent, its last `reading` included.
    const onClose = (code: number | null, signal: NodeJS.Signals | null) =>
      finish({ kind: 'failed', message: `the transpiler stopped (${signal ?? `exit code ${code}`})`, file: file() }, false);
    // The job is charged its process's CPU time (childClock.ts), never the machine's load: on a
    // loaded machine (load 30) a wall-clock limit failed a correct submission. A runaway spends
    // CPU and ends at the limit; a process that sleeps is charged its wall time over WALL_FACTOR.
    const clock = new CallClock(child.pid === undefined ? [] : [child.pid]);
    const timer = setInterval(() => {
      if (clock.charged() > limitMs) finish({ kind: 'timeout', file: file() }, false);
    }, nodeMs(Math.min(POLL_MS, limitMs)));
    child.on('message', onMessage);
    child.on('close', onClose);
    child.send(job, (err) => {
      if (err) finish({ kind: 'failed', message: `the transpiler could not be handed the job (${err.message})` }, false);
    });
  });
}
