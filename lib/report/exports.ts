/**
 * What a course exports besides grades.csv: a long-format CSV (one row per submission and test,
 * for a spreadsheet's pivot table or a script) and a gradebook an LMS imports as it is (Canvas's
 * CSV: Student, ID, SIS User ID, SIS Login ID, Section, then one column per assignment named
 * "<name> (<id>)" or, for a new assignment, "<name>"). The roster maps submission names (folder
 * names, GitHub user names) to students; a submission the roster does not name is never dropped:
 * it is listed, and it keeps a row in the Canvas file that Canvas's import preview will flag.
 */
import fs from 'node:fs';
import type { GradedCase } from '../../tests/cases';
import { causeCell, compareNames, csvCell, csvText, pointsCell, type GradebookRow } from './csv';
import type { GradescopeResults } from './gradescope';
import { apportionUnits, POINT_DECIMALS, shownScore, toUnits } from './points';
import { NameMatcher } from '../text/nameMatch';
import { showName } from '../text/sanitise';

/**
 * `submission,test,points,max,status,cause_id,cause`: one row per submission and test, by name then
 * in the case table's order. Points as grades.csv shows them (points.ts): a submission's rows add
 * up to its points before any penalty, and the tests' maxima to the maximum.
 */
export function longCsv(entries: readonly { name: string; results?: GradescopeResults }[], cases: readonly GradedCase[], decimals: number = POINT_DECIMALS): string {
  const lines = [['submission', 'test', 'points', 'max', 'status', 'cause_id', 'cause'].map((c) => csvCell(c))];
  const maxima = apportionUnits(cases.map((c) => c.points), undefined, decimals);
  for (const { name, results } of [...entries].sort((a, b) => compareNames(a.name, b.name))) {
    const tests = new Map((results?.tests ?? []).map((t) => [t.name, t.score]));
    const before = results?.extra_data.late?.before ?? results?.score ?? 0;
    const shown = shownScore(cases.map((c) => tests.get(c.name)), before, results?.score ?? 0, decimals).cells;
    for (const [i, c] of cases.entries()) {
      const status = results?.extra_data.cases[c.name];
      const cause = results?.extra_data.diagnoses?.[c.name];
      const units = shown[i];
      lines.push([
        csvCell(name), csvCell(c.name), units === undefined ? '' : pointsCell(units, decimals), pointsCell(maxima[i]!, decimals),
        csvCell(status ?? (results ? 'not graded' : 'no result')), csvCell(cause ?? ''), csvCell(cause ? causeCell(cause).slice(cause.length + 2) : ''),
      ]);
    }
  }
  return csvText(lines);
}

export interface RosterEntry {
  submission: string;
  student: string;
  id: string;
  sisUserId: string;
  sisLoginId: string;
  section: string;
}

/** Fields of one CSV line (RFC 4180: quotes, doubled quotes, commas and line breaks inside quotes). */
export function parseCsv(text: string): string[][] {
  // A byte-order mark (csvText writes one; Excel and Canvas may too) is not part of the first field.
  text = text.replace(/^\uFEFF/, '');
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') [field, i] = [field + '"', i + 1];
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') [row, field] = [[...row, field], ''];
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      rows.push([...row, field]);
      [row, field] = [[], ''];
    } else field += ch;
  }
  if (field !== '' || row.length) rows.push([...row, field]);
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

/** A CSV with a header as records by column name (for reading back a gradebook). */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  return rows.map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])));
}

export class RosterError extends Error {
  override name = 'RosterError';
}

const COLUMNS = { submission: 'submission', student: 'student', id: 'id', sisUserId: 'sis_user_id', sisLoginId: 'sis_login_id', section: 'section' } as const;

/**
 * A roster CSV with a header: `submission` (the submission's folder name) and at least one of
 * `student`, `id`, `sis_user_id`, `sis_login_id` (what Canvas matches students by); `section` is
 * optional. Column names are matched without regard to case or spaces.
 */
export function readRoster(file: string): RosterEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    throw new RosterError(`roster ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): pass --roster FILE, a CSV with a header`);
  }
  const [header, ...rows] = parseCsv(text);
  const norm = (h: string) => h.trim().toLowerCase().replace(/[\s-]+/g, '_');
  const at = Object.fromEntries(Object.entries(COLUMNS).map(([key, col]) => [key, (header ?? []).map(norm).indexOf(col)])) as Record<keyof typeof COLUMNS, number>;
  if (at.submission < 0) throw new RosterError(`roster ${file} has no "submission" column: its header must name the submission (folder) column, e.g. submission,student,id,sis_user_id,sis_login_id,section`);
  if (at.student < 0 && at.id < 0 && at.sisUserId < 0 && at.sisLoginId < 0) {
    throw new RosterError(`roster ${file} names no student: add a "student", "id", "sis_user_id" or "sis_login_id" column, which Canvas matches students by`);
  }
  const seen = new Set<string>();
  return rows.map((r, i) => {
    const get = (key: keyof typeof COLUMNS) => (at[key] >= 0 ? (r[at[key]] ?? '').trim() : '');
    const submission = get('submission');
    if (!submission) throw new RosterError(`roster ${file}, line ${i + 2}: no submission name`);
    if (seen.has(submission)) throw new RosterError(`roster ${file}, line ${i + 2}: submission ${showName(submission)} is listed twice`);
    seen.add(submission);
    return { submission, student: get('student'), id: get('id'), sisUserId: get('sisUserId'), sisLoginId: get('sisLoginId'), section: get('section') };
  });
}

export interface CanvasExport {
  csv: string;
  /** Submissions the roster does not name, each with the roster's nearest name when one is a slip away: listed, and given a row Canvas will flag. */
  unmatched: { name: string; nearest?: string }[];
  /** Roster students with no submission: their score cell is empty, which Canvas leaves as it was. */
  missing: string[];
  /** Roster names that match several submissions differing only by case or normalisation: their score is left empty. */
  ambiguous: { submission: string; names: string[] }[];
}

/**
 * Canvas's gradebook import: a row per roster student (score, or empty when they submitted
 * nothing) and, after them, a row per submission the roster does not name, marked in the Student
 * column so that the import preview shows it. Roster names match submissions ignoring case,
 * surrounding spaces and Unicode normalisation (lib/text/nameMatch.ts), an exact match first.
 */
export function canvasCsv(rows: readonly GradebookRow[], roster: readonly RosterEntry[], assignment: string, decimals: number = POINT_DECIMALS): CanvasExport {
  // The total as grades.csv shows it (points.ts), after any late penalty.
  const score = (row: GradebookRow) => pointsCell(toUnits(row.total, decimals), decimals);
  const byName = new Map(rows.map((r) => [r.name, r]));
  const matcher = new NameMatcher(rows.map((r) => r.name));
  const named = new Set<string>();
  const lines = [['Student', 'ID', 'SIS User ID', 'SIS Login ID', 'Section', assignment].map((c) => csvCell(c))];
  const missing: string[] = [];
  const ambiguous: CanvasExport['ambiguous'] = [];
  const matches = matcher.matchAll(roster.map((entry) => entry.submission));
  for (const [i, entry] of roster.entries()) {
    const match = matches[i];
    const row = match.kind === 'exact' || match.kind === 'loose' ? byName.get(match.name) : undefined;
    if (row) named.add(row.name);
    else if (match.kind === 'ambiguous') ambiguous.push({ submission: entry.submission, names: match.names });
    else missing.push(entry.submission);
    lines.push([entry.student, entry.id, entry.sisUserId, entry.sisLoginId, entry.section].map((c) => csvCell(c)).concat(row ? score(row) : ''));
  }
  const left = rows.map((r) => r.name).filter((name) => !named.has(name)).sort(compareNames);
  const unmatched = left.map((name) => ({ name, nearest: matcher.nearest(name, missing) }));
  for (const name of left) {
    lines.push([`(not in the roster) ${name}`, '', '', '', ''].map((c) => csvCell(c)).concat(score(byName.get(name)!)));
  }
  return { csv: csvText(lines), unmatched, missing, ambiguous };
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
  names: readonly string[], results: ReadonlyMap<string, GradescopeResults>, rows: readonly GradebookRow[], cases: readonly GradedCase[], options: CourseExportOptions,
): { files: [string, string][]; canvas?: CanvasExport } {
  const files: [string, string][] = [[LONG_CSV, longCsv(names.map((name) => ({ name, results: results.get(name) })), cases)]];
  if (!options.roster) return { files };
  const canvas = canvasCsv(rows, options.roster, options.assignment ?? DEFAULT_ASSIGNMENT);
  files.push([CANVAS_CSV, canvas.csv]);
  return { files, canvas };
}

/** What a run says of the Canvas file (stdout), then who the roster and the submissions do not match (stderr); every name sanitised. */
export function canvasLines(canvas: CanvasExport, file: string): { said: string; warned: string[] } {
  const lines = [`wrote ${file} (Canvas gradebook import)`];
  if (canvas.unmatched.length) {
    const shown = canvas.unmatched.map(({ name, nearest }) => `${showName(name)}${nearest === undefined ? '' : ` (did you mean ${showName(nearest)}?)`}`);
    lines.push(`${canvas.unmatched.length} submission(s) not in the roster, marked "(not in the roster)" in it: ${shown.join(', ')}`);
  }
  if (canvas.ambiguous.length) {
    const shown = canvas.ambiguous.map(({ submission, names }) => `${showName(submission)} matches ${names.map(showName).join(' and ')}`);
    lines.push(`${canvas.ambiguous.length} roster name(s) match several submissions that differ only by case or Unicode form (score left empty; write the exact folder name in the roster): ${shown.join('; ')}`);
  }
  if (canvas.missing.length) lines.push(`${canvas.missing.length} roster student(s) with no submission (empty score, left as it was by Canvas): ${canvas.missing.map(showName).join(', ')}`);
  return { said: lines[0], warned: lines.slice(1) };
}
