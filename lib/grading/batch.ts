/**
 * Batch grading: every subfolder of a folder is one submission, graded in parallel (each in its
 * own child processes). Each result is written to `<out>/<name>.json` as soon as it is known, so a
 * rerun resumes where a stopped one left off; `grades.csv` is rebuilt from those files at the end,
 * with a row for every submission whatever happened to it. With `html`, each submission also gets
 * its page as it finishes, and `report.html` is rebuilt from the JSON files at the end like the CSV.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GraderError } from '../errors';
import { writeFileAtomic } from '../fsAtomic';
import { batchReportHtml, pageFile, readBatchEntries, REPORT_FILE } from '../report/batchReport';
import { gradebookCsv, rowFromGradescope, type GradebookRow } from '../report/csv';
import { toGradescope, type GradescopeResults } from '../report/gradescope';
import { submissionPage } from '../report/submissionPage';
import { gradeSubmission, typeCheckSubmissions, withoutRunning, type GradeOptions } from './grade';
import type { SubmissionResult } from './result';

export interface BatchOptions extends GradeOptions {
  jobs: number;
  /** Regrade submissions that already have a result file. */
  force: boolean;
  /** Also write `<name>.html` per submission (with heatmaps of its failed attention cases) and `report.html`. */
  html?: boolean;
  onDone?: (result: SubmissionResult, done: number, total: number) => void;
}

export interface BatchOutcome {
  /** Graded in this run. */
  graded: SubmissionResult[];
  /** Kept from an earlier run. */
  skipped: string[];
  rows: GradebookRow[];
}

function listSubmissions(dir: string): string[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new GraderError(`submissions folder ${dir} not found: pass a folder with one subfolder per submission`);
  }
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
}

function readPrevious(file: string): GradescopeResults | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as GradescopeResults;
  } catch {
    return undefined; // missing or half-written: grade again
  }
}

/** A result for a submission whose grading itself failed: it still gets its row. */
function harnessFailure(name: string, options: GradeOptions, err: unknown): SubmissionResult {
  const reason = `the grader could not grade this submission: ${(err as Error)?.message ?? String(err)}`;
  return withoutRunning(name, options.cases, 'error', reason, [reason]);
}

export async function gradeBatch(submissionsDir: string, outDir: string, options: BatchOptions): Promise<BatchOutcome> {
  const names = listSubmissions(submissionsDir);
  fs.mkdirSync(outDir, { recursive: true });
  const rows = new Map<string, GradebookRow>();
  const skipped: string[] = [];
  const queue: string[] = [];
  for (const name of names) {
    const previous = options.force ? undefined : readPrevious(path.join(outDir, `${name}.json`));
    if (previous?.extra_data) {
      rows.set(name, rowFromGradescope(name, previous));
      skipped.push(name);
    } else queue.push(name);
  }
  const graded: SubmissionResult[] = [];
  const total = queue.length;
  // One type-checking program for the whole batch, beside the grading.
  const typeNotes = typeCheckSubmissions(queue.map((name) => ({ dir: path.join(submissionsDir, name), name })));
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      let result: SubmissionResult;
      try {
        result = await gradeSubmission(path.join(submissionsDir, name), name, { ...options, heatmaps: options.html, typeNotes });
      } catch (err) {
        result = harnessFailure(name, options, err);
      }
      const results = toGradescope(result);
      // The page before the JSON: the JSON marks the submission done, so a stop in between regrades it.
      if (options.html) writeFileAtomic(path.join(outDir, pageFile(name)), submissionPage(result));
      writeFileAtomic(path.join(outDir, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
      rows.set(name, rowFromGradescope(name, results));
      graded.push(result);
      options.onDone?.(result, graded.length, total);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.jobs) }, worker));
  const allRows = names.map((n) => rows.get(n)!);
  writeFileAtomic(path.join(outDir, 'grades.csv'), gradebookCsv(allRows, options.cases.map((c) => c.name)));
  if (options.html) writeFileAtomic(path.join(outDir, REPORT_FILE), batchReportHtml(readBatchEntries(outDir, names), options.cases));
  return { graded, skipped, rows: allRows };
}
