/**
 * A course's roster: its students as Canvas knows them (Student, ID, SIS User ID, SIS Login ID,
 * Section) and which submission folder is whose. Two kinds of file, told apart by their header:
 *
 * - a CSV with a `submission` column naming each student's folder, and any of `student`, `id`,
 *   `sis_user_id`, `sis_login_id`, `section` (column names matched ignoring case and spaces);
 * - Canvas's own gradebook export as it comes (`Student,ID,SIS User ID,SIS Login ID,Section,…`,
 *   its "Points Possible" row, its assignment and total columns, a byte-order mark, `;` between
 *   fields in a locale with decimal commas): no submission column at all.
 *
 * A row with a submission name is matched as nameMatch.ts matches typed names. A row without one
 * is matched by Canvas's identifiers: the folder named as its SIS Login ID, as the part of that
 * login before an `@`, as its SIS User ID, or as its Canvas ID (in that order of preference when
 * the run says which column matched; names compared ignoring case, spaces and Unicode form). A
 * folder that the identifiers of two students name, and a student whose identifiers name two
 * folders (none of them exactly), are matched to no one and said: never a guess.
 */
import fs from 'node:fs';
import { parseCsv } from '../text/csvParse';
import { nameKey, NameMatcher, type Match } from '../text/nameMatch';
import { showName } from '../text/sanitise';

export interface RosterEntry {
  /** The student's folder, when the roster names it; otherwise the folder is found by the identifiers below. */
  submission?: string;
  student: string;
  id: string;
  sisUserId: string;
  sisLoginId: string;
  section: string;
}

export class RosterError extends Error {
  override name = 'RosterError';
}

const COLUMNS = { submission: 'submission', student: 'student', id: 'id', sisUserId: 'sis_user_id', sisLoginId: 'sis_login_id', section: 'section' } as const;
type Column = keyof typeof COLUMNS;

/** Canvas's rows that are no student: "Points Possible" under the header, and the muted or manual-posting marks. */
const notAStudent = (row: readonly string[], studentCell: string) =>
  studentCell.includes('Points Possible') || row.every((cell) => /^\s*(Muted|Manual Posting.*)?\s*$/i.test(cell));

/** The roster's header and rows, by column (`what` names the flag in messages). */
export function readStudentTable(file: string, what: string): { at: Record<Column, number>; rows: { cells: string[]; line: number }[]; header: string[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new RosterError(`${what} ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): pass --${what} FILE, a CSV with a header`);
  }
  const [header = [], ...rows] = parseCsv(text);
  const norm = (h: string) => h.trim().toLowerCase().replace(/[\s-]+/g, '_');
  const at = Object.fromEntries(Object.entries(COLUMNS).map(([key, col]) => [key, header.map(norm).indexOf(col)])) as Record<Column, number>;
  if (at.submission < 0 && at.id < 0 && at.sisUserId < 0 && at.sisLoginId < 0) {
    throw new RosterError(`${what} ${file} has no "submission" column and none of Canvas's ID, SIS User ID or SIS Login ID: ` +
      'name each student\'s folder in a "submission" column, or pass Canvas\'s gradebook export as it comes');
  }
  const studentAt = at.student >= 0 ? at.student : 0;
  return {
    at, header,
    rows: rows.map((cells, i) => ({ cells, line: i + 2 })).filter(({ cells }) => !notAStudent(cells, cells[studentAt] ?? '')),
  };
}

/** Each row's cell of a column ('' when the file has no such column). */
export const cellOf = (at: Record<Column, number>, cells: readonly string[], column: Column): string => (at[column] >= 0 ? (cells[at[column]] ?? '').trim() : '');

/** `--roster FILE`: every student row, each naming its folder or carrying an identifier to find it by. */
export function readRoster(file: string): RosterEntry[] {
  const { at, rows } = readStudentTable(file, 'roster');
  if (at.student < 0 && at.id < 0 && at.sisUserId < 0 && at.sisLoginId < 0) {
    throw new RosterError(`roster ${file} names no student: add a "student", "id", "sis_user_id" or "sis_login_id" column, which Canvas matches students by`);
  }
  const seen = new Set<string>();
  return rows.map(({ cells, line }) => {
    const get = (column: Column) => cellOf(at, cells, column);
    const submission = get('submission');
    if (!submission && !get('id') && !get('sisUserId') && !get('sisLoginId')) {
      throw new RosterError(`roster ${file}, line ${line}: no submission name, and no ID, SIS User ID or SIS Login ID to find it by`);
    }
    if (submission && seen.has(submission)) throw new RosterError(`roster ${file}, line ${line}: submission ${showName(submission)} is listed twice`);
    seen.add(submission);
    return { ...(submission ? { submission } : {}), student: get('student'), id: get('id'), sisUserId: get('sisUserId'), sisLoginId: get('sisLoginId'), section: get('section') };
  });
}

/** A roster row's match, and the identifier column it was found by (absent when the roster named the folder). */
export type RosterMatch = Match & { by?: string };

/** Who a roster row is, in a message: its name, else its login or ID. */
export const studentLabel = (entry: RosterEntry): string => entry.student || entry.sisLoginId || entry.sisUserId || entry.id;

/** The identifiers a row is found by, each with its column's name as Canvas writes it, in order of preference. */
function identifiers(entry: RosterEntry): { by: string; value: string }[] {
  const local = entry.sisLoginId.includes('@') ? entry.sisLoginId.slice(0, entry.sisLoginId.indexOf('@')) : '';
  return [
    { by: 'SIS Login ID', value: entry.sisLoginId }, { by: 'SIS Login ID', value: local },
    { by: 'SIS User ID', value: entry.sisUserId }, { by: 'ID', value: entry.id },
  ].filter((i) => i.value !== '');
}

/**
 * Each roster row's folder among `names` (see the module's comment), and the folders that several
 * rows' identifiers name (`shared`: matched to none of them).
 */
export function matchRoster(roster: readonly RosterEntry[], names: readonly string[]): { matches: RosterMatch[]; shared: { name: string; students: string[] }[] } {
  const matches: RosterMatch[] = roster.map(() => ({ kind: 'none' }));
  const named = roster.flatMap((entry, i) => (entry.submission === undefined ? [] : [{ i, typed: entry.submission }]));
  const byName = new NameMatcher(names).matchAll(named.map((n) => n.typed));
  named.forEach(({ i }, k) => { matches[i] = byName[k]; });
  const taken = new Set(byName.flatMap((m) => (m.kind === 'exact' || m.kind === 'loose' ? [m.name] : [])));

  const index = new Map<string, { i: number; by: string; value: string }[]>();
  roster.forEach((entry, i) => {
    if (entry.submission !== undefined) return;
    for (const id of identifiers(entry)) index.set(nameKey(id.value), [...(index.get(nameKey(id.value)) ?? []), { i, ...id }]);
  });
  const claims = new Map<number, { name: string; by: string; exact: boolean }[]>();
  const shared: { name: string; students: string[] }[] = [];
  for (const name of names.filter((n) => !taken.has(n))) {
    const hits = index.get(nameKey(name)) ?? [];
    const rows = [...new Set(hits.map((h) => h.i))];
    if (rows.length > 1) shared.push({ name, students: rows.map((i) => studentLabel(roster[i])) });
    else if (rows.length === 1) {
      const best = hits[0];
      claims.set(best.i, [...(claims.get(best.i) ?? []), { name, by: best.by, exact: hits.some((h) => h.value === name) }]);
    }
  }
  for (const [i, found] of claims) {
    const exact = found.filter((f) => f.exact);
    const one = found.length === 1 ? found[0] : exact.length === 1 ? exact[0] : undefined;
    matches[i] = one ? { kind: one.exact ? 'exact' : 'loose', name: one.name, by: one.by } : { kind: 'ambiguous', names: found.map((f) => f.name).sort() };
  }
  return { matches, shared };
}
