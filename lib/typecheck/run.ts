/**
 * Type errors as an unscored note, from a checking process started beside the grading (main.ts).
 * Each submission has a time limit of its own, counted in the checking process's CPU time so that
 * machine load does not turn into a note: a check that runs past it (a slow type-level expression)
 * or crashes is stopped, that submission's note says so, and a new process checks the others. No
 * submission waits for a classmate's check: each note is ready as soon as its own check ends.
 *
 * A grading of one submission also has it transpiled in that process, first (startTypeCheck's
 * `transpile`): the same job, limit and outcomes as in the transpiling pool (transpilePool.ts),
 * without a second process that loads TypeScript.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { WorkCache } from '../workCache';
import type { Submission } from '../intake/intake';
import { PROJECT_ROOT, RUN_TS } from '../paths';
import { cpuMs } from '../sandbox/childClock';
import { nestingProblem } from '../text/nesting';
import type { CheckedSubmission } from './check';
import type { PreparedSubmission, TranspileJob } from '../sandbox/prepared';
import { TRANSPILER_STACK_FLAG, TranspilerStartError, type TranspileOutcome } from '../sandbox/transpilePool';
import { codeFile } from '../text/place';
import { compilerFiles, hashFiles, SNAPSHOT_PRELOAD, usableSnapshot } from './snapshot';

export type TypeNotes = (name: string) => Promise<string[]>;

/**
 * What the check reads of a submission as the intake took it: its TypeScript files, its entry and
 * how it is named. Here, not in check.ts, so that the grading process need not load TypeScript.
 */
export function checkedSubmission(name: string, submission: Submission): CheckedSubmission {
  return {
    name,
    files: Object.fromEntries([...submission.files].filter(([file]) => file.endsWith('.ts'))),
    entry: submission.entry,
    label: submission.label,
  };
}

/**
 * What one submission's check may cost (a typical one: tens of ms), and setting up the shared
 * program (parsing and binding every file: about a second), in CPU time of the checking process.
 * The grader gives a submission's check the time limit of one test.
 */
export const TYPE_CHECK_LIMITS = { submissionMs: 10_000, setupMs: 60_000 };
/** A check that spends no CPU (it should not exist) is stopped at this many times its limit of wall time. */
const WALL_FACTOR = 10;
const HEAP_MB = 1024;
const POLL_MS = 100;

type Answer = string[] | { problem: string };

/**
 * A submission's transpile, done in its checking process before the checks: the job, its limit of
 * CPU time, `checked` as transpileInChild calls it (once the load check has passed, as TypeScript
 * starts), and `done`, called once: with the outcome, or with a TranspilerStartError when no
 * process got as far as reading the job (the grader's failure, as when the pool cannot start one).
 */
export interface TranspileBeside {
  job: TranspileJob;
  limitMs: number;
  checked?: () => void;
  done: (outcome: TranspileOutcome | TranspilerStartError) => void;
}

/** Every checking process running, and how many times stopTypeChecks was called: a check started before a stop does not go on after it. */
const LIVE = new Set<ChildProcess>();
let stops = 0;

/**
 * Kills every checking process, and no new one starts for the checks under way: for a batch that
 * was interrupted. A note not given by then is never given (its promise stays pending).
 */
export function stopTypeChecks(): void {
  stops++;
  for (const child of LIVE) child.kill('SIGKILL');
}

interface Step {
  /** The submission being checked; undefined while the shared program is set up or the transpile runs. */
  name?: string;
  /** The transpile (TranspileBeside), not a check. */
  transpile?: true;
  cpuAtStart: number;
  wallAtStart: number;
}

/** What a checking process left: the step it was stopped in or died in, if any. */
interface Stopped {
  /** The submission it was checking; absent while it set up the shared program or transpiled. */
  at?: string;
  /** It was transpiling; `reading`: the file it was reading then, as the submission names it. */
  transpile?: { reading?: string; timeout: boolean };
  why: string;
  /** How the process ended when it died (`SIGSEGV`, `exit code 1`). */
  ended?: string;
}

/**
 * Checks the submissions in one process (after the transpile, when there is one); each answer is
 * handed to `answer` as it arrives. Resolves when the process ends, with what it left: the step it
 * was in when it was stopped or died, or nothing when it finished.
 */
function checkingProcess(
  submissions: readonly CheckedSubmission[],
  alone: boolean,
  answer: (name: string, errors: string[]) => void,
  limits: { submissionMs: number; setupMs: number },
  snapshot: string | undefined,
  transpile: TranspileBeside | undefined,
  transpiled: (outcome: TranspileOutcome) => void,
): Promise<{ stopped?: Stopped; silent: boolean }> {
  const fromSnapshot = snapshot ? ['--snapshot-blob', snapshot, '-r', SNAPSHOT_PRELOAD] : [];
  const child = spawn(
    process.execPath,
    // The transpiler's stack (transpilePool.ts): what the nesting bound lets through has room, here too.
    [`--max-old-space-size=${HEAP_MB}`, TRANSPILER_STACK_FLAG, ...fromSnapshot, '-r', RUN_TS, path.join(__dirname, 'main.ts')],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  let silent = true;
  LIVE.add(child);
  let step: Step | undefined;
  let reading: string | undefined;
  let loadChecked = false;
  let stopped: Stopped | undefined;
  const begin = (name?: string, isTranspile?: true) => {
    step = { name, transpile: isTranspile, cpuAtStart: (child.pid !== undefined ? cpuMs([child.pid]) : undefined) ?? 0, wallAtStart: Date.now() };
  };
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    silent = false;
    // A transpiled submission is one line of megabytes, arriving in many chunks: only the new chunk
    // is searched for its end, not the whole line again at each one.
    let newline = chunk.indexOf('\n');
    pending += chunk;
    if (newline >= 0) newline += pending.length - chunk.length;
    for (; newline >= 0; newline = pending.indexOf('\n')) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      try {
        const message = JSON.parse(line) as {
          settingUp?: true; checking?: string; checked?: string; errors?: string[];
          transpiling?: true; reading?: string; step?: string; transpiled?: PreparedSubmission; transpileFailed?: string;
        };
        if (message.transpiling && transpile) begin(undefined, true);
        else if (typeof message.reading === 'string' && step?.transpile) {
          // The first file TypeScript transpiles: the load check has passed.
          if (message.step === 'transpile' && !loadChecked) {
            loadChecked = true;
            transpile?.checked?.();
          }
          reading = message.reading;
        } else if (message.transpiled !== undefined && step?.transpile) {
          step = undefined;
          transpiled({ kind: 'done', prepared: message.transpiled });
        } else if (typeof message.transpileFailed === 'string' && step?.transpile) {
          step = undefined;
          transpiled({ kind: 'failed', message: message.transpileFailed, file: transpile && reading !== undefined ? codeFile(transpile.job.label, reading) : undefined });
        } else if (message.settingUp) begin();
        else if (typeof message.checking === 'string') begin(message.checking);
        else if (typeof message.checked === 'string' && Array.isArray(message.errors)) {
          step = undefined;
          answer(message.checked, message.errors.map(String));
        }
      } catch {
        // Not ours to read: the process is TypeScript on the submissions' code, not the submissions
        // themselves, so this is a fault of the checker, said below if it ends without answering.
      }
    }
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(JSON.stringify({ submissions, alone, transpile: transpile?.job }));
  const timer = setInterval(() => {
    if (!step || child.pid === undefined) return;
    const limitMs = step.transpile ? transpile!.limitMs : step.name === undefined ? limits.setupMs : limits.submissionMs;
    const spent = (cpuMs([child.pid]) ?? 0) - step.cpuAtStart;
    if (spent > limitMs || Date.now() - step.wallAtStart > limitMs * WALL_FACTOR) {
      stopped = { at: step.name, why: `took longer than ${limitMs / 1000} s and was stopped`, ...(step.transpile && { transpile: { reading, timeout: true } }) };
      child.kill('SIGKILL');
    }
  }, POLL_MS);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      LIVE.delete(child);
      clearInterval(timer);
      const ended = signal ?? `exit code ${code}`;
      if (!stopped && step) stopped = { at: step.name, why: `failed (${ended})`, ended, ...(step.transpile && { transpile: { reading, timeout: false } }) };
      if (!stopped && code !== 0) stopped = { why: `failed (${ended})`, ended };
      resolve({ stopped, silent });
    });
  });
}

/**
 * Checks every submission: a check that is stopped or dies costs its own submission a note and
 * the rest go on in a new process; a set-up that fails is retried with a program per submission.
 * A transpile that is stopped or dies is that submission's outcome, as in the transpiling pool: a
 * timeout or a failure naming the file it was reading; one that died before reading any file died
 * of nothing the submission wrote, and is tried again once.
 */
async function checkAll(
  submissions: readonly CheckedSubmission[],
  answer: (name: string, answer: Answer) => void,
  limits: { submissionMs: number; setupMs: number },
  blob: string | undefined,
  beside?: TranspileBeside,
): Promise<void> {
  const done = new Set<string>();
  let left = [...submissions];
  let alone = false;
  let snapshot = blob;
  let transpile = beside;
  let unreadRetried = false;
  const transpiled = (outcome: TranspileOutcome | TranspilerStartError) => {
    const waiting = transpile;
    transpile = undefined;
    waiting?.done(outcome);
  };
  const generation = stops;
  while (left.length || transpile) {
    const { stopped, silent } = await checkingProcess(left, alone, (name, errors) => {
      done.add(name);
      answer(name, errors);
    }, limits, snapshot, transpile, transpiled);
    if (stops !== generation) {
      if (transpile) transpiled(new TranspilerStartError('the checking process was stopped with the run before it transpiled'));
      return;
    }
    left = left.filter((s) => !done.has(s.name));
    if (!stopped) {
      // Ended on its own with the transpile unanswered: a fault of ours, not the submission's.
      if (transpile) transpiled(new TranspilerStartError('the checking process ended without transpiling'));
      break;
    }
    if (snapshot && silent) {
      // Started from the snapshot and died before a word (a blob this Node cannot load): as before, without it.
      snapshot = undefined;
      continue;
    }
    if (transpile && !stopped.transpile) {
      // It died before it began the transpile, and so before it read a byte of the submission.
      transpiled(new TranspilerStartError(`the checking process that transpiles did not start: it ${stopped.why}`));
    }
    if (stopped.transpile && transpile) {
      const { reading, timeout } = stopped.transpile;
      if (reading === undefined && !timeout && !unreadRetried) {
        unreadRetried = true;
        continue;
      }
      const file = reading === undefined ? undefined : codeFile(transpile.job.label, reading);
      transpiled(timeout ? { kind: 'timeout', file } : { kind: 'failed', message: `the transpiler stopped (${stopped.ended})`, file });
      continue;
    }
    const at = stopped.at;
    if (at === undefined) {
      // The shared program could not be set up: a program per submission, whose set-up is each one's own.
      if (alone) break;
      alone = true;
      continue;
    }
    answer(at, { problem: `its type check ${stopped.why}` });
    done.add(at);
    left = left.filter((s) => s.name !== at);
  }
  if (transpile) transpiled(new TranspilerStartError('the checking process ended without transpiling'));
  for (const s of submissions) if (!done.has(s.name)) answer(s.name, { problem: 'the type check failed before reaching it' });
}

/**
 * What a check's answer depends on besides the submission's own files: TypeScript, the project's
 * compiler options, the declaration packages and every file of lib/ (the only project files the
 * checker reads, check.ts, its own code included). A cache of answers is salted with it.
 */
export function typeCheckSalt(): string {
  const hash = createHash('sha256');
  const files = compilerFiles();
  const lib = path.join(PROJECT_ROOT, 'lib');
  for (const file of (fs.readdirSync(lib, { recursive: true }) as string[]).sort()) if (file.endsWith('.ts')) files.push(path.join(lib, file));
  hashFiles(hash, files);
  return hash.digest('hex');
}

export const isErrors = (value: unknown): value is string[] => Array.isArray(value) && value.every((e) => typeof e === 'string');

/**
 * Starts checking now; each submission's note, when asked for, as soon as its own check has ended.
 * With a cache (salted with typeCheckSalt), a submission checked in an earlier run has its answer
 * at once, and each finished check is kept. `snapshot`: the blob the checking processes start from
 * (snapshot.ts), the one built for this Node and TypeScript when there is one. `transpile`: a
 * submission's transpile, done first in the checking process (TranspileBeside), which then starts
 * even when no check is left to run (a file nested past the bound, a kept answer).
 */
export function startTypeCheck(
  submissions: readonly CheckedSubmission[],
  limits = TYPE_CHECK_LIMITS,
  cache?: WorkCache,
  snapshot = usableSnapshot(),
  transpile?: TranspileBeside,
): TypeNotes {
  const waiting = new Map<string, { promise: Promise<Answer>; resolve: (a: Answer) => void }>();
  for (const { name } of submissions) {
    let resolve!: (a: Answer) => void;
    const promise = new Promise<Answer>((r) => (resolve = r));
    waiting.set(name, { promise, resolve });
  }
  const unchecked = submissions.filter((s) => {
    // TypeScript recurses without a limit: a file nested past the bound is not given to it (its load error says why).
    const deep = Object.entries(s.files).map(([file, text]) => nestingProblem(text, s.label, file)).find((problem) => problem !== undefined);
    if (deep) waiting.get(s.name)!.resolve({ problem: deep });
    const kept = deep ? undefined : cache?.get(s, isErrors);
    if (kept) waiting.get(s.name)!.resolve(kept);
    return !deep && !kept;
  });
  const byName = new Map(unchecked.map((s) => [s.name, s]));
  if (unchecked.length || transpile) {
    void checkAll(unchecked, (name, a) => {
      // Only a check that ended is kept: one that was stopped or died is tried again next run.
      if (Array.isArray(a) && byName.has(name)) cache?.set(byName.get(name), a);
      waiting.get(name)?.resolve(a);
    }, limits, snapshot, transpile);
  }
  return async (name) => {
    const entry = waiting.get(name);
    if (!entry) return [];
    const a = await entry.promise;
    if (!Array.isArray(a)) return [`Type errors (no points): not checked, ${a.problem}.`];
    return a.length ? [`Type errors (no points; \`npm run typecheck\` shows them):\n${a.join('\n')}`] : [];
  };
}
