/**
 * What `npm run fetch-submissions` (lib/batch/fetch.ts, instructor tooling) leaves beside the
 * submissions it fetched, and how the batch grader reads it: the commit of each submission, or
 * why it could not be fetched. Read by every batch, so it ships with the handout; fetching does not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseTime } from '../late/policy';

/** What `npm run fetch-submissions` records beside the submissions: the commit of each, or why there is none. */
export const FETCHED_FILE = '.fetched.json';

export interface FetchedRecord {
  about: string;
  /** The deadline the commits were taken before, as given (ISO 8601); absent: the default branch as it was. */
  deadline?: string;
  /** Submission name → the commit graded and its commit time (ISO 8601, for a late policy), or why it could not be fetched. */
  repositories: Record<string, { slug: string; commit?: string; committed_at?: string; error?: string }>;
}

export interface Fetched {
  commit?: string;
  /** The commit's time, ms since the epoch (git's committer date). */
  committedMs?: number;
  error?: string;
}

/** Submission name → what fetching it gave, from FETCHED_FILE in a submissions folder; empty when there is none. */
export function readFetched(submissionsDir: string): Map<string, Fetched> {
  const file = path.join(submissionsDir, FETCHED_FILE);
  const found = new Map<string, Fetched>();
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile() || stat.size > 16 * 1024 ** 2) return found;
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as FetchedRecord;
    for (const [name, entry] of Object.entries(record.repositories ?? {})) {
      if (typeof entry !== 'object' || entry === null) continue;
      const commit = typeof entry.commit === 'string' && /^[0-9a-f]{40,64}$/.test(entry.commit) ? entry.commit : undefined;
      const error = typeof entry.error === 'string' ? entry.error.slice(0, 500) : undefined;
      const committedMs = commit && typeof entry.committed_at === 'string' ? parseTime(entry.committed_at) : undefined;
      if (commit || error) found.set(name, { commit, error, ...(committedMs !== undefined ? { committedMs } : {}) });
    }
  } catch {
    // no record: the folder was not fetched by us, or the record is unreadable; grade what is there
  }
  return found;
}
