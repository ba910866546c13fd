/**
 * Batch grading throughput, measured: a folder of submissions graded by `npm run grade --
 * --submissions` (the whole command, its start included) with one job per core, against a
 * `vitest run` per submission, also one per core. The caller lays out the submissions.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadCaseFixtures, prepareChild } from '../grading/grade';
import { runOrder } from '../model/invoke';
import { takeSubmission } from '../intake/intake';
import { PROJECT_ROOT, RUN_TS } from '../paths';
import { buildChildRuntime } from '../sandbox/build';
import { childCommand, launchCommand } from '../sandbox/containment';
import { ChildSession } from '../sandbox/session';
import { transpileSubmission } from '../sandbox/transpile';
import type { Assignment } from '../grading/assignment';
import { elapsedMs, timeNode } from './measure';

export const BATCH_TARGET = 10;
/** The grader's rate over the rate of bare contained starts: what grading adds to starting a child. */
export const START_RATIO_TARGET = 0.5;

export interface BatchResult {
  jobs: number;
  graderCount: number;
  /** The first run, into an empty output folder: nothing kept from an earlier run (lib/workCache.ts). */
  graderFirstSeconds: number;
  graderSeconds: number;
  graderRate: number;
  vitestCount: number;
  vitestSeconds: number;
  vitestRate: number;
  /** Contained children running an empty script (as `node -e 0`), `jobs` at a time, in the same run. */
  startCount: number;
  startSeconds: number;
  startRate: number;
  /**
   * Contained children that each load the reference and answer the graded calls of a batch run
   * (the visible cases), nothing checked, nothing written, `jobs` at a time: what running the
   * cases costs in fresh processes, before any grading.
   */
  callsCount: number;
  callsSeconds: number;
  callsRate: number;
}

const bin = (pkg: string, file: string) => path.join(PROJECT_ROOT, 'node_modules', pkg, file);

function timeGrader(submissions: string, out: string, jobs: number): number {
  const args = [RUN_TS, 'scripts/grade.ts', '--submissions', submissions, '--out', out, '--force', '--jobs', String(jobs)];
  return timeNode(args, PROJECT_ROOT) / 1000;
}

/** Runs `task(i)` for i = 0 … count − 1, `jobs` at a time; returns the wall time in seconds. */
async function timeInParallel(count: number, jobs: number, task: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  return elapsedMs(start) / 1000;
}

/** One `vitest run` per submission folder, `jobs` at a time; returns the wall time in seconds. */
async function timeVitest(folders: readonly string[], jobs: number): Promise<number> {
  return timeInParallel(folders.length, jobs, (i) => new Promise((resolve) => {
    const child = spawn(process.execPath, [bin('vitest', 'vitest.mjs'), 'run'], {
      cwd: PROJECT_ROOT, stdio: 'ignore', env: { ...process.env, ATTENTION_SUBMISSION: folders[i] },
    });
    child.on('exit', resolve);
  }));
}

/**
 * `count` contained children that run an empty script, `jobs` at a time, with the containment a
 * grading run as this user gets (whatever setting this machine allows): the floor under any
 * grading rate, since each submission needs at least one such child.
 */
async function timeContainedStarts(count: number, jobs: number): Promise<number> {
  const runtime = buildChildRuntime();
  const empty = path.join(runtime.root, 'empty.js');
  fs.writeFileSync(empty, '');
  const command = childCommand({ runtimeRoot: runtime.root, childEntry: empty, memoryBytes: 2 * 1024 ** 3, hide: [] });
  return timeInParallel(count, jobs, () => new Promise((resolve) => {
    const launched = launchCommand(command);
    const child = spawn(launched.file, launched.args, { stdio: 'ignore', env: {}, detached: command.ownSession ?? false, cwd: command.cwd });
    child.on('exit', () => {
      launched.release();
      resolve(undefined);
    });
  }));
}

/**
 * `count` contained children, `jobs` at a time, each loading the reference (transpiled once) and
 * answering every visible case's call once; the answers are read and dropped.
 */
async function timeCallsOnly(assignment: Assignment, count: number, jobs: number): Promise<number> {
  const child = prepareChild();
  const cases = runOrder(assignment.cases.filter((c) => !c.hidden));
  const fixtures = loadCaseFixtures(assignment, cases);
  const reference = takeSubmission(path.join(assignment.root, 'reference'));
  const { load } = transpileSubmission({ files: Object.fromEntries(reference.files), entry: reference.entry, label: 'reference' });
  return timeInParallel(count, jobs, async () => {
    const session = new ChildSession({ child, functions: assignment.functions, timeoutMs: 10_000, outputCap: 4096 });
    session.setSubmission(load);
    try {
      for (const graded of cases) {
        const fixture = fixtures.get(graded.fixture)!;
        const outcome = await session.call(graded.fn, { params: fixture.params, inputs: fixture.inputs });
        if (outcome.kind !== 'value') throw new Error(`bench: the reference did not answer ${graded.name} (${outcome.kind})`);
      }
    } finally {
      session.kill();
    }
  });
}

export interface BatchOptions {
  assignment: Assignment;
  /** A folder with one subfolder per submission. */
  submissions: string;
  /** Where the grader writes its results (a scratch folder). */
  out: string;
  jobs: number;
  /** How many of the submissions the (much slower) vitest side runs. */
  vitestCount: number;
}

export async function measureBatch({ assignment, submissions, out, jobs, vitestCount }: BatchOptions): Promise<BatchResult> {
  const names = fs.readdirSync(submissions).sort();
  // The first run warms the child runtime and module caches, as any second run has them, and leaves
  // its work cache in `out` (each submission's transpiled code and type check), as a rerun finds it.
  const graderFirstSeconds = timeGrader(submissions, out, jobs);
  const graderSeconds = timeGrader(submissions, out, jobs);
  const sample = names.slice(0, Math.min(names.length, vitestCount)).map((name) => path.join(submissions, name));
  const vitestSeconds = await timeVitest(sample, jobs);
  const startCount = names.length;
  const startSeconds = await timeContainedStarts(startCount, jobs);
  const callsSeconds = await timeCallsOnly(assignment, startCount, jobs);
  return {
    startCount,
    startSeconds,
    startRate: startCount / startSeconds,
    callsCount: startCount,
    callsSeconds,
    callsRate: startCount / callsSeconds,
    jobs,
    graderCount: names.length,
    graderFirstSeconds,
    graderSeconds,
    graderRate: names.length / graderSeconds,
    vitestCount: sample.length,
    vitestSeconds,
    vitestRate: sample.length / vitestSeconds,
  };
}

export function batchTable(r: BatchResult): string[] {
  return [
    '| command | submissions | wall time | submissions/s |',
    '| --- | --- | --- | --- |',
    `| \`npm run grade -- --submissions DIR --out DIR2 --jobs ${r.jobs}\` (whole command) | ${r.graderCount} | ` +
      `${r.graderSeconds.toFixed(2)} s | ${r.graderRate.toFixed(1)} |`,
    `| the same, its first run into an empty \`--out\` (every submission transpiled and type-checked) | ${r.graderCount} | ` +
      `${r.graderFirstSeconds.toFixed(2)} s | ${(r.graderCount / r.graderFirstSeconds).toFixed(1)} |`,
    `| \`ATTENTION_SUBMISSION=DIR/<name> vitest run\`, one per submission, ${r.jobs} at a time | ${r.vitestCount} | ` +
      `${r.vitestSeconds.toFixed(2)} s | ${r.vitestRate.toFixed(1)} |`,
    `| a contained child running an empty script (as \`node -e 0\`), ${r.jobs} at a time | ${r.startCount} | ` +
      `${r.startSeconds.toFixed(2)} s | ${r.startRate.toFixed(1)} |`,
    `| a contained child loading the reference and answering the visible cases' calls, nothing checked, ${r.jobs} at a time | ` +
      `${r.callsCount} | ${r.callsSeconds.toFixed(2)} s | ${r.callsRate.toFixed(1)} |`,
    '',
    `Batch rate over contained-start rate: **${(r.graderRate / r.startRate).toFixed(2)}** (target ≥ ${START_RATIO_TARGET}: ` +
      `${r.graderRate / r.startRate >= START_RATIO_TARGET ? 'met' : 'not met'}). Each submission needs at least one contained child, ` +
      'so this ratio is what the grading itself (intake, transpiling, the cases, the checks, the reports) costs on top of the floor.',
    '',
    `Only answering the cases' calls, with the reference's code, in fresh contained children and with nothing checked, ` +
      `reaches **${(r.callsRate / r.startRate).toFixed(2)}** of the contained-start rate: a grader that runs each submission ` +
      `in a fresh process cannot do better on these cases. The grader reaches **${(r.graderRate / r.callsRate).toFixed(2)}** ` +
      'of that rate: the rest is transpiling, checking, diagnosing failures, the type check and the reports, and code of ' +
      'the catalogue\'s that is slower than the reference\'s (a third of its bugs are written in plain loops). ' +
      `Its first run into an empty folder, which transpiles and type-checks every submission that a rerun takes from ` +
      `the folder's work cache, reaches **${(r.graderCount / r.graderFirstSeconds / r.callsRate).toFixed(2)}**.`,
    '',
    `Ratio grader / one vitest process per submission, in this run: **${(r.graderRate / r.vitestRate).toFixed(1)}×** ` +
      `(${r.graderRate.toFixed(1)} against ${r.vitestRate.toFixed(1)} submissions/s on this machine; target ≥ ${BATCH_TARGET} ` +
      `submissions/s: ${r.graderRate >= BATCH_TARGET ? 'met' : 'not met'} here).`,
  ];
}
