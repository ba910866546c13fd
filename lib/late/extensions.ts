/**
 * Students' own due times for a late policy (`--extensions FILE`): what Gradescope's metadata
 * carries as an extension, for a course graded here. FILE names each student as a roster does
 * (lib/late/roster.ts: a `submission` column, or Canvas's identifiers, so Canvas's gradebook
 * export or the roster itself with a column added will do) and gives either `due`, a time with its
 * zone, or `extension`, a duration added to the policy's due time (`48h`, `2d`, `90m`). A row with
 * neither is no extension: the roster may carry the column for a few students only.
 *
 * The table changes grades, so a batch records it among its options (lib/batch/options.ts: its
 * size and a sha256 of its canonical form), and each result extended records its own due time:
 * a rerun with another table regrades, and a merge refuses shards graded with different ones.
 */
import { createHash } from 'node:crypto';
import { cellOf, matchRoster, readStudentTable, RosterError, studentLabel, type RosterEntry } from './roster';
import { showName } from '../text/sanitise';
import { parseDuration, parseTime } from './policy';

/** One student's extension: their own due time, or how much later than the policy's theirs is. */
export interface Extension {
  who: RosterEntry;
  dueMs?: number;
  extraMs?: number;
}

export interface Extensions {
  entries: Extension[];
  /** sha256 of the table in a canonical form: the same extensions written two ways are one. */
  sha256: string;
}

/** `--extensions FILE`, read now: a file that cannot be used is one line naming the row and the fix. */
export function readExtensions(file: string): Extensions {
  const { at, header, rows } = readStudentTable(file, 'extensions');
  const column = (name: string) => header.map((h) => h.trim().toLowerCase()).indexOf(name);
  const [dueAt, extensionAt] = [column('due'), column('extension')];
  if (dueAt < 0 && extensionAt < 0) {
    throw new RosterError(`extensions ${file} has neither a "due" nor an "extension" column: give each student's due time (due, e.g. 2026-12-03T23:59Z) or how much later it is (extension, e.g. 48h or 2d)`);
  }
  const entries: Extension[] = [];
  const seen = new Set<string>();
  for (const { cells, line } of rows) {
    const due = dueAt >= 0 ? (cells[dueAt] ?? '').trim() : '';
    const extension = extensionAt >= 0 ? (cells[extensionAt] ?? '').trim() : '';
    if (!due && !extension) continue;
    const where = `extensions ${file}, line ${line}`;
    if (due && extension) throw new RosterError(`${where}: both a due time and an extension; keep one`);
    const get = (name: Parameters<typeof cellOf>[2]) => cellOf(at, cells, name);
    const submission = get('submission');
    const who: RosterEntry = { ...(submission ? { submission } : {}), student: get('student'), id: get('id'), sisUserId: get('sisUserId'), sisLoginId: get('sisLoginId'), section: get('section') };
    if (!submission && !who.id && !who.sisUserId && !who.sisLoginId) throw new RosterError(`${where}: no submission name, and no ID, SIS User ID or SIS Login ID to find it by`);
    const key = JSON.stringify(submission ? [submission] : [who.id, who.sisUserId, who.sisLoginId]);
    if (seen.has(key)) throw new RosterError(`${where}: ${showName(submission || studentLabel(who))} has an extension on an earlier line too; keep one`);
    seen.add(key);
    if (due) {
      const dueMs = parseTime(due);
      if (dueMs === undefined) throw new RosterError(`${where}: ${showName(due)} is not a time with its zone (e.g. 2026-12-03T23:59Z)`);
      entries.push({ who, dueMs });
    } else {
      const extraMs = parseDuration(extension);
      if (extraMs === undefined) throw new RosterError(`${where}: ${showName(extension)} is not a duration (e.g. 48h, 2d or 90m)`);
      entries.push({ who, extraMs });
    }
  }
  const canonical = entries.map(({ who, dueMs, extraMs }) => JSON.stringify([who.submission ?? '', who.id, who.sisUserId, who.sisLoginId, dueMs ?? null, extraMs ?? null])).sort();
  return { entries, sha256: createHash('sha256').update(canonical.join('\n')).digest('hex') };
}

/**
 * Each submission's own due time (ms) under a policy due at `policyDueMs`, the students matched
 * with the submissions as a roster's are; and each extension that matches no submission (or
 * several), said as a warning says it.
 */
export function extendedDueTimes(extensions: Extensions, names: readonly string[], policyDueMs: number): { dueOf: Map<string, number>; unmatched: string[] } {
  const { matches, shared } = matchRoster(extensions.entries.map((e) => e.who), names);
  const dueOf = new Map<string, number>();
  const unmatched: string[] = [];
  for (const [i, { who, dueMs, extraMs }] of extensions.entries.entries()) {
    const match = matches[i];
    const label = showName(who.submission ?? studentLabel(who));
    if (match.kind === 'exact' || match.kind === 'loose') dueOf.set(match.name, dueMs ?? policyDueMs + extraMs!);
    else if (match.kind === 'ambiguous') unmatched.push(`${label} (matches ${match.names.map(showName).join(' and ')}: write the exact folder name)`);
    else unmatched.push(label);
  }
  for (const { name, students } of shared) unmatched.push(`${showName(name)} (named by ${students.map(showName).join(' and ')})`);
  return { dueOf, unmatched };
}
