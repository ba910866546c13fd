/**
 * What a course exports besides grades.csv: a long-format CSV (one row per submission and test,
 * for a spreadsheet's pivot table or a script) and a gradebook an LMS imports as it is (Canvas's
 * CSV: Student, ID, SIS User ID, SIS Login ID, Section, then one column per assignment named
 * "<name> (<id>)" or, for a new assignment, "<name>"). The roster (roster.ts) says which
 * submission is whose; a submission the roster does not name is never dropped: it is listed, and
 * it keeps a row in the Canvas file that Canvas's import preview will flag.
 */
import type { GradedCase } from '../assignment/cases';
import type { ReportTerms } from './causes';
import { compareNames, csvCell, csvText, pointsCell, type GradebookRow } from './csv';
import type { GradescopeResults } from './gradescope';
import { apportionUnits, POINT_DECIMALS, shownScore, toUnits } from './points';
import { NameMatcher } from '../text/nameMatch';
import { showName } from '../text/sanitise';
import { matchRoster, studentLabel, type RosterEntry } from '../late/roster';

export { csvRecords, parseCsv } from '../text/csvParse';

/**
 * `submission,test,points,max,status,cause_id,cause`: one row per submission and test, by name then
 * in the case table's order. Points as grades.csv shows them (points.ts): a submission's rows add
 * up to its points before any penalty, and the tests' maxima to the maximum.
 */
export function longCsv(entries: readonly { name: string; results?: GradescopeResults }[], cases: readonly GradedCase[], terms: ReportTerms, decimals: number = POINT_DECIMALS): string {
  const lines = [['submission', 'test', 'points', 'max', 'status', 'cause_id', 'cause'].map((c) => csvCell(c))];
  const maxima = apportionUnits(cases.map((c) => c.points), undefined, decimals);
  for (const { name, results } of [...entries].sort((a, b) => compareNames(a.name, b.name))) {
    const tests = new Map((results?.tests ?? []).map((t) => [t.name, t.score]));
    const before = results?.extra_data.late?.before ?? results?.score ?? 0;
    const shown = shownScore(cases.map((c) => tests.get(c.name)), before, results?.score ?? 0, decimals).cells;
    for (const [i, c] of cases.entries()) {
      const status = results?.extra_data.cases[c.name];
      // The causes the diagnosis names, as the report lists them (causes.ts): not what its probes only saw.
      const cause = terms.causes.diagnosed(results?.extra_data.diagnoses?.[c.name]);
      const units = shown[i];
      lines.push([
        csvCell(name), csvCell(c.name), units === undefined ? '' : pointsCell(units, decimals), pointsCell(maxima[i]!, decimals),
        csvCell(status ?? (results ? 'not graded' : 'no result')), csvCell(cause ?? ''), csvCell(cause ? terms.causes.cell(cause).slice(cause.length + 2) : ''),
      ]);
    }
  }
  return csvText(lines);
}

export interface CanvasExport {
  csv: string;
  /** Submissions the roster does not name, each with the roster's nearest name when one is a slip away: listed, and given a row Canvas will flag. */
  unmatched: { name: string; nearest?: string }[];
  /** Roster students with no submission: their score cell is empty, which Canvas leaves as it was. */
  missing: string[];
  /** Roster rows that match several submissions (differing only by case or Unicode form, or named by several identifiers): their score is left empty. */
  ambiguous: { who: string; names: string[] }[];
  /** Submissions that several students' Canvas identifiers name: matched to none of them. */
  shared: { name: string; students: string[] }[];
  /** Rows matched by Canvas's identifiers (no submission name in the roster), by the column that matched: "SIS Login ID" → 280. */
  by: Record<string, number>;
  /** Roster rows matched by Canvas's identifiers, or tried and matched nothing. */
  byIdentifiers: number;
}

/**
 * Canvas's gradebook import: a row per roster student (score, or empty when they submitted
 * nothing) and, after them, a row per submission the roster does not name, marked in the Student
 * column so that the import preview shows it. Which folder is whose: roster.ts matchRoster.
 */
export function canvasCsv(rows: readonly GradebookRow[], roster: readonly RosterEntry[], assignment: string, decimals: number = POINT_DECIMALS): CanvasExport {
  // The total as grades.csv shows it (points.ts), after any late penalty.
  const score = (row: GradebookRow) => pointsCell(toUnits(row.total, decimals), decimals);
  const byName = new Map(rows.map((r) => [r.name, r]));
  const named = new Set<string>();
  const lines = [['Student', 'ID', 'SIS User ID', 'SIS Login ID', 'Section', assignment].map((c) => csvCell(c))];
  const missing: string[] = [];
  const ambiguous: CanvasExport['ambiguous'] = [];
  const by: Record<string, number> = {};
  const { matches, shared } = matchRoster(roster, rows.map((r) => r.name));
  for (const [i, entry] of roster.entries()) {
    const match = matches[i];
    const row = match.kind === 'exact' || match.kind === 'loose' ? byName.get(match.name) : undefined;
    if (row) named.add(row.name);
    if (row && match.by) by[match.by] = (by[match.by] ?? 0) + 1;
    if (match.kind === 'ambiguous') ambiguous.push({ who: entry.submission ?? studentLabel(entry), names: match.names });
    else if (!row) missing.push(entry.submission ?? studentLabel(entry));
    lines.push([entry.student, entry.id, entry.sisUserId, entry.sisLoginId, entry.section].map((c) => csvCell(c)).concat(row ? score(row) : ''));
  }
  const left = rows.map((r) => r.name).filter((name) => !named.has(name)).sort(compareNames);
  const matcher = new NameMatcher(rows.map((r) => r.name));
  const unmatched = left.map((name) => ({ name, nearest: matcher.nearest(name, missing) }));
  for (const name of left) {
    lines.push([`(not in the roster) ${name}`, '', '', '', ''].map((c) => csvCell(c)).concat(score(byName.get(name)!)));
  }
  return { csv: csvText(lines), unmatched, missing, ambiguous, shared, by, byIdentifiers: roster.filter((e) => e.submission === undefined).length };
}

export const LONG_CSV = 'grades-long.csv';
export const CANVAS_CSV = 'canvas.csv';
/** Canvas creates an assignment of this name on import unless the column names an existing one as "<name> (<id>)". */
export const DEFAULT_ASSIGNMENT = 'Scaled dot-product attention';

export interface CourseExportOptions {
  /** Write canvas.csv for this roster. */
  roster?: readonly RosterEntry[];
  /** The Canvas assignment column: "<name> (<id>)" for an existing assignment, or a new one's name. */
  assignment?: string;
}

/** The export files of a batch or a merge (file name → contents), built before anything is written, and the roster's verdict. */
export function courseExports(
  names: readonly string[], results: ReadonlyMap<string, GradescopeResults>, rows: readonly GradebookRow[], cases: readonly GradedCase[], terms: ReportTerms, options: CourseExportOptions,
): { files: [string, string][]; canvas?: CanvasExport } {
  const files: [string, string][] = [[LONG_CSV, longCsv(names.map((name) => ({ name, results: results.get(name) })), cases, terms)]];
  if (!options.roster) return { files };
  const canvas = canvasCsv(rows, options.roster, options.assignment ?? DEFAULT_ASSIGNMENT);
  files.push([CANVAS_CSV, canvas.csv]);
  return { files, canvas };
}

/** What a run says of the Canvas file (stdout), then who the roster and the submissions do not match (stderr); every name sanitised. */
export function canvasLines(canvas: CanvasExport, file: string): { said: string; warned: string[] } {
  const found = Object.entries(canvas.by).map(([column, n]) => `${n} by ${column}`);
  const lines = [`wrote ${file} (Canvas gradebook import)${found.length ? `; roster students found by Canvas's identifiers: ${found.join(', ')}` : ''}`];
  if (canvas.byIdentifiers > 0 && found.length === 0) {
    lines.push(`no submission folder is named as any roster student's SIS Login ID, SIS User ID or ID: add a "submission" column to the roster naming each student's folder`);
  }
  if (canvas.unmatched.length) {
    const shown = canvas.unmatched.map(({ name, nearest }) => `${showName(name)}${nearest === undefined ? '' : ` (did you mean ${showName(nearest)}?)`}`);
    lines.push(`${canvas.unmatched.length} submission(s) not in the roster, marked "(not in the roster)" in it: ${shown.join(', ')}`);
  }
  if (canvas.ambiguous.length) {
    const shown = canvas.ambiguous.map(({ who, names }) => `${showName(who)} matches ${names.map(showName).join(' and ')}`);
    lines.push(`${canvas.ambiguous.length} roster student(s) match several submissions (score left empty; write the exact folder name in a "submission" column): ${shown.join('; ')}`);
  }
  if (canvas.shared.length) {
    const shown = canvas.shared.map(({ name, students }) => `${showName(name)} is named by ${students.map(showName).join(' and ')}`);
    lines.push(`${canvas.shared.length} submission(s) named by several roster students' identifiers, matched to none (write the folder in a "submission" column): ${shown.join('; ')}`);
  }
  if (canvas.missing.length) lines.push(`${canvas.missing.length} roster student(s) with no submission (empty score, left as it was by Canvas): ${canvas.missing.map(showName).join(', ')}`);
  return { said: lines[0], warned: lines.slice(1) };
}
