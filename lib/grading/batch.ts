/**
 * Batch grading: every subfolder of a folder is one submission, graded in parallel (each in its
 * own child processes). Each result is written to `<out>/submissions/<name>.json` (lib/report/batchReport.ts resultsFile) as soon as it is known, with
 * what it was graded with (lib/batch/provenance.ts), so a rerun keeps exactly the results that
 * still match and regrades the rest; `grades.csv` is rebuilt from those files at the end, with a
 * row for every submission whatever happened to it. With `html`, each submission also gets its
 * page as it finishes, and `report.html` is rebuilt from the JSON files at the end like the CSV.
 * With `shard`, only the submissions of that shard (lib/batch/shard.ts) are graded; `batch.json`
 * records which, for `npm run merge`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { badName } from '../batch/checkResult';
import { readFetched } from '../batch/fetched';
import { fixtureHashes, gradedWith, take, takenHash, caseTable, type Provenance, type Taken } from '../batch/provenance';
import { ABOUT, namesHash, removeRecord, writeRecord } from '../batch/record';
import { readResults, regradeReason, type RegradeReason } from '../batch/resume';
import { inShard, WHOLE, type Shard } from '../batch/shard';
import { summaryEntry } from '../batch/summary';
import { WorkCache } from '../batch/workCache';
import { buildChildRuntime } from '../sandbox/build';
import { GraderError } from '../errors';
import { writeFileAtomic } from '../fsAtomic';
import { batchReportHtml, pageFile, readBatchEntries, REPORT_FILE, resultsFile, SUBMISSIONS_DIR } from '../report/batchReport';
import { gradebookCsv, rowFromGradescope, type GradebookRow } from '../report/csv';
import { toGradescope } from '../report/gradescope';
import { submissionPage } from '../report/submissionPage';
import { oneLine } from '../text/sanitise';
import type { SummaryEntry } from '../report/terminal';
import { DEFAULT_BUDGET_MS, DEFAULT_MEMORY_BYTES, gradeSubmission, typeCheckSubmissions, withoutRunning, type GradeOptions } from './grade';
import { LastGuard } from './lastGuard';
import { courseExports, type CanvasExport, type CourseExportOptions } from '../report/exports';
import type { SubmissionResult } from './result';
import { typeCheckSalt, type TypeNotes } from '../typecheck/run';

export interface BatchOptions extends GradeOptions {
  jobs: number;
  /** Regrade every submission, even one whose result still matches. */
  force: boolean;
  /** Also write `<name>.html` per submission (with heatmaps of its failed attention cases) and `report.html`. */
  html?: boolean;
  /** The child's memory cap, as prepareChild was given it: recorded with each result. */
  memoryBytes?: number;
  /** Grade only this shard of the folder (default: all of it). */
  shard?: Shard;
  onDone?: (result: SubmissionResult, done: number, total: number) => void;
  /** canvas.csv for this roster, under this assignment column (grades-long.csv is always written). */
  exports?: CourseExportOptions;
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
}

function listSubmissions(dir: string): string[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new GraderError(`submissions folder ${dir} not found: pass a folder with one subfolder per submission`);
  }
  // A link in place of a folder is listed too: the intake refuses it with a reason, and it gets its row.
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
}

/** A result for a submission whose grading itself failed: it still gets its row. */
function harnessFailure(name: string, options: GradeOptions, err: unknown): SubmissionResult {
  const message = (err as Error)?.message ?? String(err);
  // The row reaches the student: the details (with this machine's paths) go to the grader's log only.
  console.error(`grade: the grader failed on ${oneLine(name)}: ${message}`);
  const reason = `the grader could not grade this submission: ${oneLine(message).replace(/(?<![\w.-])\/[^\s:'"]+/g, '…')}`;
  return withoutRunning(name, options.cases, 'error', reason, [reason]);
}

const NO_NOTES: TypeNotes = async () => [];

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
  const fixtures = fixtureHashes(options.cases);
  const run = gradedWith({
    hidden: options.cases.some((c) => c.hidden),
    timeout_ms: options.timeoutMs,
    budget_ms: options.budgetMs ?? DEFAULT_BUDGET_MS,
    memory_mib: (options.memoryBytes ?? DEFAULT_MEMORY_BYTES) / 1024 ** 2,
    ...(options.carryForward ? { carry_forward: true as const } : {}),
    ...(options.variants ? { variants: options.variants.secretSha256 } : {}),
  }, options.cases, fixtures);

  const results = new Map<string, ReturnType<typeof toGradescope>>();
  const skipped: string[] = [];
  const regraded = new Map<string, RegradeReason>();
  const queue: { name: string; provenance: Provenance; taken?: Taken }[] = [];
  for (const name of names) {
    if (notFetched.includes(name)) {
      // Nothing to grade, and nothing kept: the next run (after a new fetch) grades it.
      regraded.set(name, 'new');
      queue.push({ name, provenance: { ...run, submission: null } });
      continue;
    }
    // Read once: the hash, the type check and the grading all use this one snapshot of the folder.
    const taken = take(path.join(submissionsDir, name), name, true);
    const provenance = { ...run, submission: takenHash(taken) };
    const previous = readResults(path.join(outDir, resultsFile(name)));
    const why = regradeReason(previous, run, provenance.submission, options.force);
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
  const total = queue.length;
  // One checking process for the whole batch, beside the grading (typecheck/run.ts).
  // What this folder's last run checked and transpiled of the same files is not done again (workCache.ts).
  const typeCheckCache = new WorkCache(outDir, 'typechecked', typeCheckSalt());
  const transpileCache = new WorkCache(outDir, 'transpiled', path.basename(buildChildRuntime().root));
  const typeNotes = typeCheckSubmissions(queue.flatMap(({ name, taken }) => (taken ? [{ name, taken }] : [])), options.timeoutMs, typeCheckCache);
  const provenances = new Map<string, Provenance>();
  const write = (name: string, result: SubmissionResult, provenance: Provenance) => {
    const written = toGradescope(result);
    written.extra_data.graded_with = provenance;
    // The commit this result grades, when the folder came from npm run fetch-submissions.
    const commit = fetched.get(name)?.commit;
    if (commit) written.extra_data.commit = commit;
    // The page before the JSON: the JSON marks the submission done, so a stop in between regrades it.
    if (options.html) writeFileAtomic(path.join(outDir, pageFile(name)), submissionPage(result));
    writeFileAtomic(path.join(outDir, resultsFile(name)), `${JSON.stringify(written, null, 2)}\n`);
    results.set(name, written);
  };
  const guard = new LastGuard().install();
  const worker = async () => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      const { name } = job;
      let result: SubmissionResult;
      let provenance = job.provenance;
      try {
        const fetchError = notFetched.includes(name) ? fetched.get(name)!.error : undefined;
        if (fetchError) {
          const reason = `not fetched: ${oneLine(fetchError)}`;
          result = withoutRunning(name, options.cases, 'error', reason, [reason]);
          write(name, result, provenance);
          provenances.set(name, provenance);
          graded.push(result);
          options.onDone?.(result, graded.length, total);
          continue;
        }
        // After the guard fired, what is left is not graded in this run: each gets its row, and the next run grades it.
        if (guard.failure) throw new GraderError(`not graded: the grader stopped after an unexpected error (${guard.failure.message}); the next run grades it`);
        // No result waits on the type check: its notes are added when it is done, below.
        const grading = gradeSubmission(path.join(submissionsDir, name), name, { ...options, heatmaps: options.html, typeNotes: NO_NOTES, taken: job.taken, transpileCache });
        grading.catch(() => undefined); // abandoned when the guard fires: its children are gone
        result = await guard.race(grading);
      } catch (err) {
        result = harnessFailure(name, options, err);
        graderErrors.push(name);
        // The grader failed, not the submission: no record that would keep this result next time.
        provenance = { ...provenance, submission: null };
      }
      write(name, result, provenance);
      provenances.set(name, provenance);
      graded.push(result);
      options.onDone?.(result, graded.length, total);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
  } finally {
    guard.remove();
  }
  // The type check of the whole batch ran beside the grading: its notes join the results now.
  for (const result of guard.failure ? [] : graded) {
    const notes = await typeNotes(result.name);
    if (notes.length === 0) continue;
    result.feedback.push(...notes);
    write(result.name, result, provenances.get(result.name)!);
  }

  for (const cache of [transpileCache, typeCheckCache]) cache.prune();
  const rows = names.map((name) => rowFromGradescope(name, results.get(name)!));
  writeFileAtomic(path.join(outDir, 'grades.csv'), gradebookCsv(rows, options.cases.map((c) => c.name)));
  const exported = courseExports(names, results, rows, options.cases, options.exports ?? {});
  for (const [file, contents] of exported.files) writeFileAtomic(path.join(outDir, file), contents);
  if (options.html) writeFileAtomic(path.join(outDir, REPORT_FILE), batchReportHtml(readBatchEntries(outDir, names), options.cases));
  writeRecord(outDir, {
    about: ABOUT,
    shard,
    batch: { submissions: everyone.length, sha256: namesHash(everyone) },
    submissions: names,
    graded_with: run,
    case_table: caseTable(options.cases),
    fixtures,
  });
  return { graded, skipped, graderErrors, regraded, rows, entries: names.map((name) => summaryEntry(name, results.get(name)!)), canvas: exported.canvas };
}
