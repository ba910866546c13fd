/**
 * When each submission was handed in, for a late policy (policy.ts), from whichever source the
 * course has: Gradescope's `submission_metadata.json` (its `created_at`, and the due date with the
 * student's extension), the commit `npm run fetch-submissions` graded (its commit time, which the
 * student's clock sets: see docs/late-policy.md), or a CSV the instructor exports from elsewhere
 * (`--times FILE`: `submission,submitted_at`). A submission with no time gets no penalty, and its
 * row says so.
 */
import fs from 'node:fs';
import { csvRecords } from '../text/csvParse';
import { NameMatcher } from '../text/nameMatch';
import { showName } from '../text/sanitise';
import { parseTime, type LateTime } from './policy';

export class TimesError extends Error {
  override name = 'TimesError';
}

/** When a submission was handed in, and its own due times (policy.ts LateTime). */
export type SubmissionTime = LateTime;

/** `--times FILE`: typed submission name → time. Every row must name a submission and give a time with its zone. */
export function readTimesFile(file: string): Map<string, number> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    throw new TimesError(`--times ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}): pass a CSV with the header submission,submitted_at`);
  }
  const records = csvRecords(text);
  const times = new Map<string, number>();
  for (const [i, record] of records.entries()) {
    const name = (record.submission ?? '').trim();
    const when = (record.submitted_at ?? '').trim();
    if (!('submission' in record) || !('submitted_at' in record)) throw new TimesError(`--times ${file} needs the header submission,submitted_at`);
    if (!name) throw new TimesError(`--times ${file}, line ${i + 2}: no submission name`);
    const ms = parseTime(when);
    if (ms === undefined) throw new TimesError(`--times ${file}, line ${i + 2}: ${showName(when)} is not a time with its zone (e.g. 2026-12-01T23:59:00Z)`);
    if (times.has(name)) throw new TimesError(`--times ${file}, line ${i + 2}: submission ${showName(name)} is listed twice`);
    times.set(name, ms);
  }
  return times;
}

/**
 * The times of a file matched with the submissions (as a roster is: ignoring case, spaces and
 * Unicode form), and the file's names that match none (with the nearest submission, when one is
 * a slip away) or several.
 */
export function matchTimes(names: readonly string[], typed: ReadonlyMap<string, number>): { times: Map<string, number>; unmatched: string[] } {
  const matcher = new NameMatcher(names);
  const entries = [...typed];
  const matches = matcher.matchAll(entries.map(([name]) => name));
  const times = new Map<string, number>();
  const unmatched: string[] = [];
  for (const [i, [name, ms]] of entries.entries()) {
    const match = matches[i];
    if (match.kind === 'exact' || match.kind === 'loose') times.set(match.name, ms);
    else if (match.kind === 'ambiguous') unmatched.push(`${showName(name)} (matches ${match.names.map(showName).join(' and ')}: write the exact folder name)`);
    else {
      const nearest = matcher.nearest(name);
      unmatched.push(`${showName(name)}${nearest === undefined ? '' : ` (did you mean ${showName(nearest)}?)`}`);
    }
  }
  return { times, unmatched };
}

/**
 * Gradescope's `submission_metadata.json`: when this submission was made (`created_at`) and its
 * due date: a user's own (`users[].assignment.due_date`, an extension) when the file has one, the
 * latest among a group's users, else the assignment's (`assignment.due_date`). Nothing when the
 * file is missing or unreadable.
 */
export function gradescopeTime(metadataFile: string): SubmissionTime {
  let metadata: { created_at?: unknown; assignment?: { due_date?: unknown }; users?: { assignment?: { due_date?: unknown } }[] };
  try {
    metadata = JSON.parse(fs.readFileSync(metadataFile, 'utf8')) as typeof metadata;
  } catch {
    return { source: 'gradescope' };
  }
  const time = (value: unknown) => (typeof value === 'string' ? parseTime(value) : undefined);
  const own = (Array.isArray(metadata.users) ? metadata.users : []).map((u) => time(u?.assignment?.due_date)).filter((t): t is number => t !== undefined);
  return {
    submittedMs: time(metadata.created_at),
    dueMs: own.length ? Math.max(...own) : time(metadata.assignment?.due_date),
    source: 'gradescope',
  };
}

/**
 * When each submission of a batch was handed in: the --times file's time (names matched as a
 * roster's are) first, else the time of the commit fetch-submissions graded; and the names of the
 * file that match no submission.
 */
export function submissionTimes(
  names: readonly string[], typed: ReadonlyMap<string, number> | undefined, fetched: ReadonlyMap<string, { committedMs?: number }>,
): { timeOf: (name: string) => SubmissionTime; unmatched: string[] } {
  const { times, unmatched } = typed ? matchTimes(names, typed) : { times: new Map<string, number>(), unmatched: [] };
  const timeOf = (name: string): SubmissionTime => {
    const given = times.get(name);
    if (given !== undefined) return { submittedMs: given, source: 'times' };
    const committed = fetched.get(name)?.committedMs;
    return committed !== undefined ? { submittedMs: committed, source: 'commit' } : { source: null };
  };
  return { timeOf, unmatched };
}
