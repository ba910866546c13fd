/**
 * What a batch result was graded with, so a rerun can tell a result it may keep from one it must
 * regrade, and a merge can refuse shards that were graded differently. Everything that can change
 * a verdict is here: the options (hidden cases, time limit, budget, memory cap), the case table,
 * the fixtures (by their manifest hashes, which loadCaseFixtures checked every file against) and
 * the submission's own content hash (lib/intake). How many jobs ran, or where, changes no verdict
 * and is not recorded.
 */
import { createHash } from 'node:crypto';
import type { GradedCase } from '../../tests/cases';
import { readManifest, type Manifest } from '../grading/manifest';
import { IntakeError, takeSubmission, type Submission } from '../intake/intake';

/** The options that change verdicts, as the command line gave them. */
export interface RecordedOptions {
  hidden: boolean;
  timeout_ms: number;
  budget_ms: number;
  memory_mib: number;
  /** Present only when on, so results graded before the option existed still match a run without it. */
  carry_forward?: true;
  /** --variants: sha256 of the secret (lib/model/draw.ts secretHash), never the secret; present only when on. */
  variants?: string;
}

/** The part every result of one run shares; stored in each `<name>.json` and in `batch.json`. */
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

export function gradedWith(options: RecordedOptions, cases: readonly GradedCase[], fixtures: Record<string, string>): GradedWith {
  return {
    options: {
      hidden: options.hidden, timeout_ms: options.timeout_ms, budget_ms: options.budget_ms, memory_mib: options.memory_mib,
      ...(options.variants !== undefined && { variants: options.variants }),
    },
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

/** Reads the submission once; never throws. `byName`: a batch's, named by its name in messages (takeSubmission). */
export function take(dir: string, name: string, byName = false): Taken {
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

/** Each recorded option as its flag shows it, for messages. */
const SHOWN: Record<keyof RecordedOptions, (value: unknown) => string> = {
  hidden: (v) => `--hidden ${v === true ? 'on' : v === false ? 'off' : String(v)}`,
  timeout_ms: (v) => `--timeout ${typeof v === 'number' ? `${v / 1000} s` : String(v)}`,
  budget_ms: (v) => `--budget ${typeof v === 'number' ? `${v / 1000} s` : String(v)}`,
  memory_mib: (v) => `--memory ${typeof v === 'number' ? `${v} MiB` : String(v)}`,
  carry_forward: (v) => `--carry-forward ${v === true ? 'on' : 'off'}`,
  variants: (v) => `--variants ${typeof v === 'string' ? `with the secret of sha256 ${v.slice(0, 12)}…` : 'off'}`,
};

/**
 * What differs between two records, as "<a's> instead of <b's>" naming the first thing that does
 * ("--hidden on instead of off", "another case table"); undefined when they agree.
 */
export function difference(a: GradedWith, b: GradedWith): string | undefined {
  const changed = (Object.keys(SHOWN) as (keyof RecordedOptions)[]).filter((k) => a.options?.[k] !== b.options?.[k]);
  if (changed.length) {
    return changed.map((k) => `${SHOWN[k](a.options?.[k])} instead of ${SHOWN[k](b.options?.[k]).replace(/^--\S+ /, '')}`).join(', ');
  }
  if (a.cases !== b.cases) return 'another case table';
  if (a.fixtures !== b.fixtures) return 'other fixtures';
  return undefined;
}
