/**
 * Reading submissions off the similarity check's own process: a few child processes
 * (readerMain.ts; one per TEXTS_PER_CHILD submissions, one per core at most, four at most), each
 * reading one submission at a time under a time limit and a heap cap. Whatever a file does to
 * TypeScript's parser there (overflow its stack, run out its heap, keep it busy) ends that child
 * only: the submission gets a reason that names the file, and a new child goes on with the others.
 * A child that cannot start is the check's own failure, never a submission's.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, RUN_TS } from '../paths';
import { codeFile } from '../text/place';
import type { Read, Unreadable } from './read';
import type { ReadRequest } from './readerMain';
import { busyTimer } from '../sandbox/busyClock';

/**
 * Reading a submission takes milliseconds, and every step of it is linear in the text (the nesting
 * pre-scan bounds the parser's recursion): this is a backstop, far past what even the intake's
 * 4 MiB takes on a machine loaded many times over (the 10 s it was stopped a 64 KiB file at a load
 * of 40 on 2 cores).
 */
export const READ_LIMIT_MS = 60_000;
/** TypeScript's heap for one submission of at most the intake's 4 MiB of code. */
const CHILD_HEAP_MB = 512;
/** Loading TypeScript into a new child takes a second or two, longer on a loaded machine. */
const START_LIMIT_MS = 60_000;
/** A child costs about what reading this many submissions does (it loads TypeScript). */
const TEXTS_PER_CHILD = 100;

/** One submission to read: its files (path → text), its entry, and how its folder is named in reasons. */
export interface ReadJob {
  label: string;
  entry: string;
  files: ReadonlyMap<string, string>;
  /** Its own limit, instead of the one readAll is given. */
  limitMs?: number;
}

function startChild(): Promise<ChildProcess> {
  const child = fork(path.join(__dirname, 'readerMain.ts'), [], {
    cwd: PROJECT_ROOT,
    env: {},
    execArgv: [`--max-old-space-size=${CHILD_HEAP_MB}`, '-r', RUN_TS],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      timer.clear();
      child.kill('SIGKILL');
      reject(new Error(`the process that reads submissions did not start: ${why}`));
    };
    // A start is the machine's work: charged as its load allows (lib/sandbox/busyClock.ts).
    const timer = busyTimer(START_LIMIT_MS, () => fail(`not ready within ${START_LIMIT_MS / 1000} s of its share of the machine`));
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code, signal) => fail(signal ?? `exit code ${code}`));
    child.once('message', () => {
      timer.clear();
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      child.on('error', () => undefined);
      resolve(child);
    });
  });
}

/** Children to read `count` submissions with, started at once (while the intake reads the folders). */
export function startReaders(count: number): Promise<ChildProcess>[] {
  const children = Math.max(1, Math.min(Math.ceil(count / TEXTS_PER_CHILD), os.availableParallelism(), 4));
  return Array.from({ length: children }, () => {
    const started = startChild();
    // Awaited by a lane; a failure is reported there, not as an unhandled rejection meanwhile.
    started.catch(() => undefined);
    return started;
  });
}

type Answer = { id: number; file: string } | ({ id: number } & Unreadable) | ({ id: number } & Read);

/** A child's answer is checked like any message: a reply of the wrong shape is a problem, not a stream. */
function wellFormed(m: Answer): Read | Unreadable {
  if ('problem' in m) return typeof m.problem === 'string' ? { problem: m.problem, refused: m.refused === true } : { problem: 'the reading process answered with no reason', refused: false };
  const { ids, spans } = m as { ids: unknown; spans: unknown };
  if (ids instanceof Int32Array && spans instanceof Int32Array && spans.length === 4 * ids.length) return { ids, spans } as Read;
  return { problem: 'the reading process answered with no tokens', refused: false };
}

/** One submission through `child`: its tokens, or why there are none (its own problem, past `limitMs`, or the child stopped). */
function ask(child: ChildProcess, id: number, job: ReadJob, limitMs: number): Promise<Read | Unreadable> {
  return new Promise((resolve) => {
    let file: string | undefined;
    const where = () => (file === undefined ? '' : `${codeFile(job.label, file)}: `);
    const finish = (answer: Read | Unreadable) => {
      timer.clear();
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(answer);
    };
    // Charged as the machine's load allows: a busy machine stops no reading that an idle one finishes.
    const timer = busyTimer(limitMs, () => finish({ problem: `${where()}reading it took longer than ${limitMs / 1000} s and was stopped`, refused: false }));
    const onMessage = (m: Answer) => {
      if (m?.id !== id) return;
      if ('file' in m && typeof m.file === 'string') file = m.file;
      else finish(wellFormed(m));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      finish({ problem: `${where()}the process reading it stopped (${signal ?? `exit code ${code}`}): out of memory, or past its stack`, refused: false });
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
    const request: ReadRequest = { id, label: job.label, entry: job.entry, files: [...job.files] };
    child.send(request);
  });
}

/**
 * The tokens of each job, in order, or the reason it could not be read. A child that failed on a
 * file its parser read, ran past a limit or stopped is replaced: no submission is read by a process
 * another one may have left in a bad state (one that only refused a file before parsing it is not).
 * `readers` may be started beforehand (startReaders).
 */
export async function readAll(jobs: readonly ReadJob[], defaultLimitMs = READ_LIMIT_MS, readers = startReaders(jobs.length)): Promise<(Read | string)[]> {
  const out: (Read | string)[] = new Array(jobs.length);
  let next = 0;
  const lane = async (first: Promise<ChildProcess>) => {
    let child: ChildProcess | undefined = await first;
    try {
      while (next < jobs.length) {
        // Started before a job is taken: a lane that cannot start one leaves its jobs to the others.
        if (!child?.connected) child = await startChild();
        if (next >= jobs.length) break;
        const id = next++;
        const answer = await ask(child, id, jobs[id], jobs[id].limitMs ?? defaultLimitMs);
        out[id] = 'problem' in answer ? answer.problem : answer;
        if ('problem' in answer && !answer.refused) {
          child.kill('SIGKILL');
          child = undefined;
        }
      }
    } finally {
      // Gone before readAll returns: nothing of the run is left on the machine, and its CPU time is counted.
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }
    }
  };
  // Every lane runs to its end before a failure to start a child is reported: no child is left behind.
  const lanes = await Promise.allSettled(readers.map(lane));
  const failed = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
  if (failed && out.filter((o) => o !== undefined).length < jobs.length) throw failed.reason;
  return out;
}
