/**
 * What a batch result was graded with, so a rerun can tell a result it may keep from one it must
 * regrade, and a merge can refuse shards that were graded differently. Everything that can change
 * a grade is here: the options (every one lib/batch/options.ts lists), the case table,
 * the fixtures (by their manifest hashes, which loadCaseFixtures checked every file against) and
 * the submission's own content hash (lib/intake). How many jobs ran, or where, changes no verdict
 * and is not recorded.
 */
import { createHash } from 'node:crypto';
import type { GradedCase } from '../assignment/cases';
import { readManifest, type Manifest } from '../model/manifest';
import { optionsDifference, recordOptions, type OptionValues } from './options';
import { IntakeError, takeSubmission, type Submission } from '../intake/intake';
import { notText } from '../intake/names';
import { showName } from '../text/sanitise';

/** The options that change grades, as lib/batch/options.ts records them (recordOptions): option key → value. */
export type RecordedOptions = Record<string, unknown>;

/** The part every result of one run shares; stored in each `<stem>.json` and in `batch.json`. */
export interface GradedWith {
  options: RecordedOptions;
  /** sha256 of the case table (caseTable). */
  cases: string;
  /** sha256 of the fixtures' hashes (fixtureHashes). */
  fixtures: string;
}

/** One result's record: the run's, and what it graded (submissionHash; null when nothing could be read or the grader failed). */
export interface Provenance extends GradedWith {
  submission: string | null;
  /** When it was submitted (ISO 8601), as a late policy read it; absent without a late policy. */
  submitted_at?: string | null;
  /** Its own due time (ISO 8601) under the late policy, when --extensions gave it one. */
  due?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The graded cases with every field that decides a verdict, in the table's order. */
export function caseTable(cases: readonly GradedCase[]): GradedCase[] {
  return cases.map((c) => ({
    name: c.name, fn: c.fn, points: c.points, fixture: c.fixture, hidden: c.hidden,
    tolerance: { ...c.tolerance }, checks: [...c.checks], what: c.what,
  }));
}

/** Fixture key → sha256 over its manifest entry: parameters, and the hash of every file it holds. */
export function fixtureHashes(cases: readonly GradedCase[], manifest: Manifest = readManifest()): Record<string, string> {
  const keys = [...new Set(cases.map((c) => c.fixture))].sort();
  return Object.fromEntries(keys.map((key) => {
    const entry = manifest.fixtures[key];
    const files = (record: Record<string, { sha256: string }> = {}) =>
      Object.keys(record).sort().map((name) => [name, record[name].sha256]);
    return [key, sha256(JSON.stringify({ params: entry?.params ?? null, files: files(entry?.files), mistakes: files(entry?.mistakes) }))];
  }));
}

export function gradedWith(values: OptionValues, cases: readonly GradedCase[], fixtures: Record<string, string>): GradedWith {
  return {
    options: recordOptions(values),
    cases: sha256(JSON.stringify(caseTable(cases))),
    fixtures: sha256(JSON.stringify(Object.entries(fixtures).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))),
  };
}

/**
 * The submission's content hash as the intake reads it. Taken before grading: a submission edited
 * while it is graded then no longer matches, and is regraded. One the intake refuses (no index.ts,
 * a link, too large) is fingerprinted by the refusal, so it is kept while the refusal is the same;
 * null when the folder could not be read at all: nothing to match, so it is always regraded.
 */
export function submissionHash(dir: string, name: string): string | null {
  return takenHash(take(dir, name));
}

/** A submission as the intake read it once, or why it could not: what a batch hashes, type-checks and grades. */
export type Taken = Submission | Error;

/**
 * Reads the submission once; never throws. `byName`: a batch's, named by its name in messages
 * (takeSubmission). A folder whose name is not text is refused unread (lib/intake/names.ts).
 */
export function take(dir: string, name: string, byName = false): Taken {
  const odd = notText(name);
  if (odd) return new IntakeError(`the folder ${showName(name)} has a name that ${odd}: rename it (letters, digits, - and _ are safe everywhere) and grade again`);
  try {
    return takeSubmission(dir, name, byName);
  } catch (err) {
    return err instanceof Error ? err : new Error(`the intake failed: ${typeof err}`);
  }
}

/** The content hash of what was taken (see submissionHash). */
export function takenHash(taken: Taken): string | null {
  if (!(taken instanceof Error)) return taken.sha256;
  return taken instanceof IntakeError ? `refused:${sha256(taken.message)}` : null;
}

/**
 * What differs between two records, as "<a's> instead of <b's>" naming the first thing that does
 * ("--hidden on instead of off", "another case table"); undefined when they agree.
 */
export function difference(a: GradedWith, b: GradedWith): string | undefined {
  const options = optionsDifference(a.options, b.options);
  if (options) return options;
  if (a.cases !== b.cases) return 'another case table';
  if (a.fixtures !== b.fixtures) return 'other fixtures';
  return undefined;
}
