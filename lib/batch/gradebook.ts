/**
 * The files a batch writes at its end, from the results it has (graded now or kept): grades.csv,
 * the exports (grades-long.csv, canvas.csv), report.html and batch.json. Every submission has a
 * row: one with no result (its grading was interrupted, or its result could not be written) has
 * a row saying why, which the next run replaces.
 */
import path from 'node:path';
import type { GradedCase } from '../assignment/cases';
import { writeFileAtomic } from '../fsAtomic';
import { batchReportHtml, readBatchEntries, REPORT_FILE } from '../report/batchReport';
import { gradebookCsv, rowFromGradescope, type GradebookRow } from '../report/csv';
import type { ReportTerms } from '../report/causes';
import { courseExports, type CanvasExport, type CourseExportOptions } from '../report/exports';
import type { GradescopeResults } from '../report/gradescope';
import { fileStems, GRADES_CSV } from '../report/layout';
import { caseTable, type GradedWith } from './provenance';
import { ABOUT, namesHash, writeRecord, type BatchRecord } from './record';
import type { Shard } from './shard';

export interface GradebookInput {
  outDir: string;
  /** This run's submissions, in the gradebook's order. */
  names: readonly string[];
  /** Every submission of the folder, before it was split into shards. */
  everyone: readonly string[];
  shard: Shard;
  run: GradedWith;
  cases: readonly GradedCase[];
  /** What the report and grades-long.csv say of the assignment: its functions' short names, its causes' words. */
  terms: ReportTerms;
  fixtures: Record<string, string>;
  /** The results there are. */
  results: ReadonlyMap<string, GradescopeResults>;
  /** Why each submission without a result has none (the row's status). */
  missing: ReadonlyMap<string, string>;
  /** Also report.html. */
  html: boolean;
  /** grades.csv has the late policy's columns. */
  late: boolean;
  exports: CourseExportOptions;
  interrupted?: BatchRecord['interrupted'];
}

export function writeGradebook(input: GradebookInput): { rows: GradebookRow[]; canvas?: CanvasExport } {
  const { outDir, names, results, cases } = input;
  const max = cases.reduce((sum, c) => sum + c.points, 0);
  const rows = names.map((name) => {
    const result = results.get(name);
    if (result) return rowFromGradescope(name, result);
    return { name, points: {}, total: 0, max, status: `not graded: ${input.missing.get(name) ?? 'no result'}` };
  });
  writeFileAtomic(path.join(outDir, GRADES_CSV), gradebookCsv(rows, cases.map((c) => c.name), { late: input.late }));
  const exported = courseExports(names, results, rows, cases, input.terms, input.exports);
  for (const [file, contents] of exported.files) writeFileAtomic(path.join(outDir, file), contents);
  if (input.html) writeFileAtomic(path.join(outDir, REPORT_FILE), batchReportHtml(readBatchEntries(outDir, names), cases, input.terms));
  writeRecord(outDir, {
    about: ABOUT,
    shard: input.shard,
    batch: { submissions: input.everyone.length, sha256: namesHash(input.everyone) },
    submissions: [...names],
    graded_with: input.run,
    case_table: caseTable(cases),
    fixtures: input.fixtures,
    files: fileStems(names),
    ...(input.interrupted ? { interrupted: input.interrupted } : {}),
  });
  return { rows, canvas: exported.canvas };
}
