/** The gradebook: one CSV row per submission, for a spreadsheet or an LMS import (RFC 4180). */
import type { CaseStatus, SubmissionResult } from '../model/result';
import type { GradescopeResults } from './gradescope';
import type { LateOutcome } from '../late/policy';
import { spreadsheetCell } from '../text/sanitise';
import { fromUnits, POINT_DECIMALS, shownScore, toUnits, type ShownScore } from './points';
import { formatPoints, statusSummary } from './words';

export interface GradebookRow {
  name: string;
  /** Points per case name. A case that was never graded (the submission could not run) is absent. */
  points: Record<string, number>;
  total: number;
  max: number;
  /** `graded`, `graded (2 tests timed out, 1 test crashed)` or `error: <reason>`. */
  status: string;
  /** What a late policy took (then `total` is what is left). */
  late?: LateOutcome;
}

function statusText(submission: SubmissionResult['status'], feedback: readonly string[], statuses: readonly CaseStatus[]): string {
  if (submission === 'error') {
    // The first feedback note says why it could not run; the rest (e.g. each type error) is in the JSON.
    const reason = feedback.find((f) => f.trim() !== '')?.trim().split(/\r\n|\r|\n/)[0];
    return `error: ${reason || 'the submission could not be run'}`;
  }
  const summary = statusSummary(statuses);
  return summary ? `graded (${summary})` : 'graded';
}

export function rowFromResult(result: SubmissionResult): GradebookRow {
  return {
    name: result.name,
    points: Object.fromEntries(result.cases.map((c) => [c.name, c.points])),
    total: result.score,
    max: result.maxScore,
    status: statusText(result.status, result.feedback, result.cases.map((c) => c.status)),
    ...(result.late ? { late: result.late } : {}),
  };
}

/**
 * A row rebuilt from a `<stem>.json` this grader wrote, so a batch rerun need not grade again.
 * Gradescope's own fields hold the points; extra_data holds our statuses and the maximum.
 */
export function rowFromGradescope(name: string, results: GradescopeResults): GradebookRow {
  const extra = results.extra_data as GradescopeResults['extra_data'] | undefined;
  if (!extra || typeof extra.cases !== 'object' || extra.cases === null) {
    throw new Error(`${name}.json has no extra_data.cases, so it was not written by this grader: grade ${name} again`);
  }
  return {
    name,
    points: Object.fromEntries(results.tests.map((t) => [t.name, t.score])),
    total: results.score,
    max: extra.max_score,
    status: statusText(extra.submission_status, extra.reason !== undefined ? [extra.reason] : extra.feedback ?? [], Object.values(extra.cases)),
    ...(extra.late ? { late: extra.late } : {}),
  };
}

/**
 * One CSV cell. Numbers are ours, and a negative one is a number, not a formula: as they are. Text
 * (names, reasons, headers) is always quoted, so that a `;` or TAB inside stays inside whatever
 * separator the spreadsheet splits on, and guarded (spreadsheetCell): no terminal controls, never
 * a formula.
 */
export function csvCell(value: string | number): string {
  if (typeof value === 'number') return formatPoints(value);
  return `"${spreadsheetCell(value).replace(/"/g, '""')}"`;
}

/** Points shown (units of POINT_DECIMALS, points.ts) as a cell. */
export const pointsCell = (units: number, decimals: number = POINT_DECIMALS): string => csvCell(fromUnits(units, decimals));

/**
 * A CSV file of these cells: CRLF line ends as RFC 4180 has them, and a byte-order mark first, so
 * that Excel reads it as UTF-8 (without one it takes the file for the system's code page and
 * `José Núñez` comes out garbled). Canvas's gradebook import accepts it (its own exports carry one
 * when a user asks), and so do Google Sheets, LibreOffice and this project's parseCsv.
 */
export function csvText(lines: readonly (readonly string[])[]): string {
  return `\uFEFF${lines.map((line) => line.join(',')).join('\r\n')}\r\n`;
}

// Numeric order reads naturally for generated names: student2 before student10.
const byName = new Intl.Collator('en', { numeric: true });
export const compareNames = (a: string, b: string): number => byName.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);

/** A row's points as shown (points.ts), its cells in the order of `caseNames`. */
export function shownRow(row: GradebookRow, caseNames: readonly string[], decimals: number = POINT_DECIMALS): ShownScore {
  const points = caseNames.map((n) => (Object.hasOwn(row.points, n) ? row.points[n] : undefined));
  return shownScore(points, row.late?.before ?? row.total, row.total, decimals);
}

/**
 * The columns a late policy adds at the end of grades.csv: `total` is then the points after the
 * penalty, which is `points before penalty` (the tests' cells added up) less `late penalty`.
 */
export const LATE_COLUMNS = ['points before penalty', 'late penalty', 'submitted at', 'due', 'late'] as const;

function lateCells(row: GradebookRow, shown: ShownScore, decimals: number): string[] {
  const late = row.late;
  // A row with nothing graded (not fetched, the grader's failure) has no penalty to show.
  if (!late) return ['', '', '', '', ''];
  return [pointsCell(shown.points, decimals), pointsCell(shown.penalty, decimals), csvCell(late.submitted_at ?? ''), csvCell(late.due ?? ''), csvCell(late.note)];
}

/**
 * `name,<case names…>,total,max,status`, then one row per submission sorted by name: points as
 * points.ts shows them, so a row's cells add up to its total (less its penalty, with a late
 * policy). A case a submission never reached has an empty cell, not a 0. With a late policy
 * (`late`), LATE_COLUMNS follow. What each test's failure was caused by is in grades-long.csv
 * (exports.ts), one row per submission and test, not here: this file stays one screen wide.
 */
export function gradebookCsv(
  rows: readonly SubmissionResult[] | readonly GradebookRow[], caseNames: readonly string[], options: { late?: boolean; decimals?: number } = {},
): string {
  const decimals = options.decimals ?? POINT_DECIMALS;
  const table = (rows as readonly (SubmissionResult | GradebookRow)[])
    .map((r) => ('cases' in r ? rowFromResult(r) : r))
    .sort((a, b) => compareNames(a.name, b.name));
  const header = ['name', ...caseNames, 'total', 'max', 'status', ...(options.late ? LATE_COLUMNS : [])];
  const lines = [header.map((c) => csvCell(c))];
  for (const row of table) {
    const shown = shownRow(row, caseNames, decimals);
    lines.push([
      csvCell(row.name),
      ...shown.cells.map((units) => (units === undefined ? '' : pointsCell(units, decimals))),
      pointsCell(shown.total, decimals),
      pointsCell(toUnits(row.max, decimals), decimals),
      csvCell(row.status),
      ...(options.late ? lateCells(row, shown, decimals) : []),
    ]);
  }
  return csvText(lines);
}
