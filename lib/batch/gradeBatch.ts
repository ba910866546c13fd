/**
 * Batch grading: every subfolder of a folder is one submission (lib/batch/listing.ts), graded in
 * parallel (each in its own child processes). Each result is written to
 * `<out>/submissions/<stem>.json` (lib/report/layout.ts) as soon as it is known, with what it was
 * graded with (lib/batch/provenance.ts), so a rerun keeps exactly the results that still match and
 * regrades the rest; `grades.csv` is rebuilt from those files at the end (lib/batch/gradebook.ts),
 * with a row for every submission whatever happened to it, a result that could not be written or
 * a run stopped by Ctrl-C (lib/batch/interrupt.ts) included. With `html`, each submission also gets
 * its page as it finishes, and `report.html` is rebuilt from the JSON files at the end like the
 * CSV. With a late policy (lib/late), each result's score is what is left after its penalty. With
 * `shard`, only the submissions of that shard (lib/batch/shard.ts) are graded; `batch.json`
 * records which, for `npm run merge`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { badName } from './checkResult';
import { readFetched } from './fetched';
import { writeGradebook } from './gradebook';
import { Interrupted, onStopSignal, type StopSignal } from './interrupt';
import { pageFile, resultsFile, SUBMISSIONS_DIR } from '../report/layout';
import { listSubmissions, lookalikeNames } from './listing';
import { fixtureHashes, gradedWith, type Provenance } from './provenance';
import { take, takenHash, type Taken } from '../intake/take';
import { removeRecord } from './record';
import { readResults, regradeReason, type RegradeReason } from './resume';
import { inShard, WHOLE, type Shard } from './shard';
import { summaryEntry } from './summary';
import { WorkCache } from '../workCache';
import { extendedDueTimes, type Extensions } from '../late/extensions';
import { withLatePenalty, type LatePolicy } from '../late/policy';
import { submissionTimes, type SubmissionTime } from '../late/times';
import { buildChildRuntime } from '../sandbox/build';
import { GraderError } from '../errors';
import { writeFileAtomic } from '../fsAtomic';
import { type GradebookRow } from '../report/csv';
import { toGradescope, type GradescopeResults } from '../report/gradescope';
import { submissionPage } from '../report/submissionPage';
import { oneLine } from '../text/sanitise';
import type { SummaryEntry } from '../report/terminal';
import { gradeSubmission, typeCheckSubmissions, withoutRunning, type GradeOptions } from '../grading/grade';
import { LastGuard } from '../grading/lastGuard';
import type { CanvasExport, CourseExportOptions } from '../report/exports';
import type { SubmissionResult } from '../model/result';
import { stopTypeChecks, typeCheckSalt, type TypeNotes } from '../typecheck/run';
import { CauseBook } from '../report/causes';
import { fixturesDir } from '../grading/assignment';
import { readManifest } from '../model/manifest';

export interface BatchOptions extends GradeOptions {
  jobs: number;
  /** Regrade every submission, even one whose result still matches. */
  force: boolean;
  /** Also write `<stem>.html` per submission (with heatmaps of its failed attention cases) and `report.html`. */
  html?: boolean;
  /** The child's memory cap, as prepareChild was given it: recorded with each result. */
  memoryBytes?: number;
  /** Grade only this shard of the folder (default: all of it). */
  shard?: Shard;
  /** Grading begins: `total` submissions to grade in this run, `kept` results of an earlier run kept. */
  onStart?: (total: number, kept: number) => void;
  onDone?: (result: SubmissionResult, done: number, total: number) => void;
  /** canvas.csv for this roster, under this assignment column (grades-long.csv is always written). */
  exports?: CourseExportOptions;
  /** What a late submission loses (lib/late/policy.ts), applied from each submission's time. */
  latePolicy?: LatePolicy;
  /** When each submission was handed in, by its name as typed in --times (matched as a roster is); otherwise the fetched commit's time. */
  times?: ReadonlyMap<string, number>;
  /** Students' own due times under the late policy (--extensions), matched as a roster is. */
  extensions?: Extensions;
  /** Stop on SIGINT or SIGTERM, writing the gradebook of what finished (lib/batch/interrupt.ts). */
  interruptible?: boolean;
}

export interface BatchOutcome {
  /** Graded in this run. */
  graded: SubmissionResult[];
  /** Kept from an earlier run. */
  skipped: string[];
  /** Submissions the grader itself failed on (not the students' doing): the run should exit non-zero. */
  graderErrors: string[];
  /** Why each graded submission was graded rather than kept. */
  regraded: Map<string, RegradeReason>;
  /** Every submission of the run (shard), graded or kept, in the gradebook's order. */
  rows: GradebookRow[];
  /** The same submissions, for the summary that closes the run. */
  entries: SummaryEntry[];
  /** The roster's verdict, when canvas.csv was written. */
  canvas?: CanvasExport;
  /** Groups of submissions whose names differ only by case, spaces or Unicode form: each graded as its own. */
  lookalikes: string[][];
  /** Under a late policy: the submissions with no known time (no penalty), graded in this run or kept. */
  untimed: string[];
  /** Names of --times that match no submission (or several), said as the warning says them. */
  timesUnmatched: string[];
  /** Students of --extensions that match no submission (or several), said as the warning says them. */
  extensionsUnmatched: string[];
  /** Set when a signal stopped the run: how many of the run's submissions have a result. */
  interrupted?: { signal: StopSignal; graded: number; of: number };
}

/** A result for a submission whose grading itself failed: it still gets its row. */
function harnessFailure(name: string, options: GradeOptions, err: unknown): SubmissionResult {
  const message = (err as Error)?.message ?? String(err);
  // The row reaches the student: the details (with this machine's paths) go to the grader's log only.
  console.error(`grade: the grader failed on ${oneLine(name)}: ${oneLine(message)}`);
  const reason = `the grader could not grade this submission: ${oneLine(message).replace(/(?<![\w.-])\/[^\s:'"]+/g, '…')}`;
  return withoutRunning(name, options.cases, 'error', reason, [reason]);
}

const NO_NOTES: TypeNotes = async () => [];

/** A file-system error in a few words, without this machine's paths: the row reaches the gradebook. */
const errorWords = (err: unknown) => (err as NodeJS.ErrnoException)?.code ?? oneLine(String((err as Error)?.message ?? err)).replace(/(?<![\w.-])\/[^\s:'"]+/g, '…');

export async function gradeBatch(submissionsDir: string, outDir: string, options: BatchOptions): Promise<BatchOutcome> {
  const folders = listSubmissions(submissionsDir);
  // What npm run fetch-submissions recorded: the commit of each, and the repositories it could not
  // fetch, which have no folder but still get their row.
  const fetched = readFetched(submissionsDir);
  const notFetched = [...fetched].filter(([name, f]) => f.error && !folders.includes(name) && !badName(name)).map(([name]) => name);
  const everyone = [...folders, ...notFetched].sort();
  const shard = options.shard ?? WHOLE;
  const names = everyone.filter((name) => inShard(name, shard));
  fs.mkdirSync(path.join(outDir, SUBMISSIONS_DIR), { recursive: true });
  // Until this run ends the folder is not a finished batch: a merge must not take it.
  removeRecord(outDir);
  const fixtures = fixtureHashes(options.cases, readManifest(fixturesDir(options.assignment)));
  const run = gradedWith(options, options.cases, fixtures, options.assignment.parts?.on);
  const policy = options.latePolicy;
  const { timeOf: handedIn, unmatched: timesUnmatched } = submissionTimes(everyone, options.times, fetched);
  const extended = policy?.dueMs !== undefined && options.extensions ? extendedDueTimes(options.extensions, everyone, policy.dueMs) : undefined;
  const timeOf = (name: string): SubmissionTime => {
    const extendedMs = extended?.dueOf.get(name);
    return extendedMs === undefined ? handedIn(name) : { ...handedIn(name), extendedMs };
  };
  const provenanceOf = (name: string, submission: string | null): Provenance => {
    if (!policy) return { ...run, submission };
    const { submittedMs, extendedMs } = timeOf(name);
    const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
    return { ...run, submission, submitted_at: iso(submittedMs), ...(extendedMs !== undefined ? { due: iso(extendedMs)! } : {}) };
  };

  const results = new Map<string, GradescopeResults>();
  const skipped: string[] = [];
  const regraded = new Map<string, RegradeReason>();
  const queue: { name: string; provenance: Provenance; taken?: Taken }[] = [];
  for (const name of names) {
    if (notFetched.includes(name)) {
      // Nothing to grade, and nothing kept: the next run (after a new fetch) grades it.
      regraded.set(name, 'new');
      queue.push({ name, provenance: provenanceOf(name, null) });
      continue;
    }
    // Read once: the hash, the type check and the grading all use this one snapshot of the folder.
    const taken = take(path.join(submissionsDir, name), name, true);
    const provenance = provenanceOf(name, takenHash(taken));
    const previous = readResults(path.join(outDir, resultsFile(name)));
    const why = regradeReason(previous, provenance, options.force);
    if (why === undefined) {
      results.set(name, previous!);
      skipped.push(name);
    } else {
      regraded.set(name, why);
      queue.push({ name, provenance, taken });
    }
  }

  const graded: SubmissionResult[] = [];
  const graderErrors: string[] = [];
  /** Submissions of this run with no result, and why: the row says so, and the next run grades them. */
  const missing = new Map<string, string>();
  const total = queue.length;
  // One checking process for the whole batch, beside the grading (typecheck/run.ts).
  // What this folder's last run checked and transpiled of the same files is not done again (workCache.ts).
  const typeCheckCache = new WorkCache(outDir, 'typechecked', typeCheckSalt());
  const transpileCache = new WorkCache(outDir, 'transpiled', path.basename(buildChildRuntime().root));
  const typeNotes = typeCheckSubmissions(queue.flatMap(({ name, taken }) => (taken ? [{ name, taken }] : [])), options.timeoutMs, typeCheckCache);
  const provenances = new Map<string, Provenance>();
  /** Writes one submission's page and result; a failure to is that submission's row, never the batch's end. */
  const write = (name: string, result: SubmissionResult, provenance: Provenance): boolean => {
    const written = toGradescope(result);
    written.extra_data.graded_with = provenance;
    // The commit this result grades, when the folder came from npm run fetch-submissions.
    const commit = fetched.get(name)?.commit;
    if (commit) written.extra_data.commit = commit;
    try {
      // The page before the JSON: the JSON marks the submission done, so a stop in between regrades it.
      if (options.html) writeFileAtomic(path.join(outDir, pageFile(name)), submissionPage(result, options.assignment.cases, options.assignment.page));
      writeFileAtomic(path.join(outDir, resultsFile(name)), `${JSON.stringify(written, null, 2)}\n`);
    } catch (err) {
      console.error(`grade: could not write the result of ${oneLine(name)}: ${errorWords(err)}`);
      results.delete(name);
      missing.set(name, `the grader could not write its result (${errorWords(err)}); fix that and run the same command again`);
      if (!graderErrors.includes(name)) graderErrors.push(name);
      return false;
    }
    results.set(name, written);
    return true;
  };
  const finish = (name: string, result: SubmissionResult, provenance: Provenance) => {
    const timed = policy ? withLatePenalty(result, policy, timeOf(name)) : result;
    if (!write(name, timed, provenance)) return;
    provenances.set(name, provenance);
    graded.push(timed);
    options.onDone?.(timed, graded.length, total);
  };
  options.onStart?.(total, skipped.length);
  const guard = new LastGuard().install();
  const interrupted = () => (guard.failure instanceof Interrupted ? guard.failure : undefined);
  const stopSignals = options.interruptible ? onStopSignal((signal) => guard.fire(new Interrupted(signal))) : () => undefined;
  const worker = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      const { name } = job;
      if (interrupted()) {
        missing.set(name, 'the batch was interrupted before it was graded; run the same command to resume');
        continue;
      }
      let result: SubmissionResult;
      let provenance = job.provenance;
      try {
        const fetchError = notFetched.includes(name) ? fetched.get(name)!.error : undefined;
        if (fetchError) {
          const reason = `not fetched: ${oneLine(fetchError)}`;
          finish(name, withoutRunning(name, options.cases, 'error', reason, [reason]), provenance);
          continue;
        }
        // After the guard fired, what is left is not graded in this run: each gets its row, and the next run grades it.
        if (guard.failure) throw new GraderError(`not graded: the grader stopped after an unexpected error (${guard.failure.message}); the next run grades it`);
        // No result waits on the type check: its notes are added when it is done, below.
        const grading = gradeSubmission(path.join(submissionsDir, name), name, { ...options, heatmaps: options.html, typeNotes: NO_NOTES, taken: job.taken, transpileCache });
        grading.catch(() => undefined); // abandoned when the guard fires: its children are gone
        result = await guard.race(grading);
      } catch (err) {
        if (err instanceof Interrupted) {
          missing.set(name, 'the batch was interrupted while it was graded; run the same command to resume');
          continue;
        }
        result = harnessFailure(name, options, err);
        graderErrors.push(name);
        // The grader failed, not the submission: no record that would keep this result next time.
        provenance = { ...provenance, submission: null };
      }
      finish(name, result, provenance);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
  } finally {
    guard.remove();
  }
  // The type check of the whole batch ran beside the grading: its notes join the results now (a
  // result is finished with its notes, even in a run that was stopped: the checker takes the
  // submissions in the order they were graded, and a second Ctrl-C exits at once).
  for (const result of graded) {
    const notes = await typeNotes(result.name);
    if (notes.length === 0) continue;
    result.feedback.push(...notes);
    write(result.name, result, provenances.get(result.name)!);
  }
  // What was left unchecked when the run was stopped is not checked.
  if (guard.failure) stopTypeChecks();

  for (const cache of [transpileCache, typeCheckCache]) cache.prune();
  const stopped = interrupted();
  const done = names.filter((name) => results.has(name)).length;
  const terms = { functions: options.assignment.functions, causes: new CauseBook((await options.assignment.diagnosis?.())?.causes), title: options.assignment.page.title };
  const { rows, canvas } = writeGradebook({
    outDir, names, everyone, shard, run, cases: options.cases, terms, fixtures, results, missing,
    html: Boolean(options.html), late: Boolean(policy), exports: options.exports ?? {},
    ...(stopped ? { interrupted: { signal: stopped.signal, graded: done, of: names.length } } : {}),
  });
  stopSignals();
  const withResults = names.filter((name) => results.has(name));
  return {
    graded, skipped, graderErrors, regraded, rows, canvas,
    entries: withResults.map((name) => summaryEntry(name, results.get(name)!)),
    lookalikes: lookalikeNames(names),
    timesUnmatched,
    extensionsUnmatched: extended?.unmatched ?? [],
    // Every submission with a result, kept ones too: a resumed run reports on the whole batch.
    untimed: policy ? withResults.filter((name) => {
      const extra = results.get(name)!.extra_data;
      return extra.late?.submitted_at === null && extra.submission_status !== 'error';
    }) : [],
    ...(stopped ? { interrupted: { signal: stopped.signal, graded: done, of: names.length } } : {}),
  };
}
