/**
 * What a result records it was graded with (lib/batch/provenance.ts makes it): the shape every
 * results file, batch record and report reads, so that none of them needs the batch's code.
 */

/** The options that change grades, as lib/batch/options.ts records them (recordOptions): option key → value. */
export type RecordedOptions = Record<string, unknown>;

/** The part every result of one run shares; stored in each `<stem>.json` and in `batch.json`. */
export interface GradedWith {
  options: RecordedOptions;
  /** The ids of the assignment's parts graded (lib/grading/assignment.ts AssignmentParts); absent for an assignment without optional parts. */
  parts?: string[];
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
