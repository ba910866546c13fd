/**
 * What a batch result was graded with, so a rerun can tell a result it may keep from one it must
 * regrade, and a merge can refuse shards that were graded differently. Everything that can change
 * a grade is here: the options (every one lib/batch/options.ts lists), the assignment's parts
 * switched on (their cases are in the table too; the parts are recorded to be named), the case
 * table, the fixtures (by their manifest hashes, which loadCaseFixtures checked every file against)
 * and the submission's own content hash (lib/intake). How many jobs ran, or where, changes no verdict
 * and is not recorded.
 */
import { createHash } from 'node:crypto';
import type { GradedCase } from '../assignment/cases';
import type { Manifest } from '../model/manifest';
import { optionsDifference, recordOptions, type OptionValues } from './options';
import type { GradedWith } from '../model/provenance';

export type { GradedWith, Provenance, RecordedOptions } from '../model/provenance';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The graded cases with every field that decides a verdict, in the table's order. */
export function caseTable(cases: readonly GradedCase[]): GradedCase[] {
  return cases.map((c) => ({
    name: c.name, fn: c.fn, points: c.points, fixture: c.fixture, hidden: c.hidden,
    tolerance: { ...c.tolerance }, ...(c.partTolerance && { partTolerance: { ...c.partTolerance } }), checks: [...c.checks], what: c.what,
  }));
}

/** Fixture key → sha256 over its manifest entry: parameters, and the hash of every file it holds. */
/** `manifest`: the assignment's (its fixtures' folder, readManifest). */
export function fixtureHashes(cases: readonly GradedCase[], manifest: Manifest): Record<string, string> {
  const keys = [...new Set(cases.map((c) => c.fixture))].sort();
  return Object.fromEntries(keys.map((key) => {
    const entry = manifest.fixtures[key];
    const files = (record: Record<string, { sha256: string }> = {}) =>
      Object.keys(record).sort().map((name) => [name, record[name].sha256]);
    return [key, sha256(JSON.stringify({ params: entry?.params ?? null, files: files(entry?.files), mistakes: files(entry?.mistakes) }))];
  }));
}

/** `parts`: the ids of the assignment's parts graded, when it has optional ones (lib/grading/assignment.ts AssignmentParts). */
export function gradedWith(values: OptionValues, cases: readonly GradedCase[], fixtures: Record<string, string>, parts?: readonly string[]): GradedWith {
  return {
    options: recordOptions(values),
    ...(parts && { parts: [...parts] }),
    cases: sha256(JSON.stringify(caseTable(cases))),
    fixtures: sha256(JSON.stringify(Object.entries(fixtures).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))),
  };
}

/**
 * What differs between two records, as "<a's> instead of <b's>" naming the first thing that does
 * ("--hidden on instead of off", "another case table"); undefined when they agree.
 */
export function difference(a: GradedWith, b: GradedWith): string | undefined {
  const options = optionsDifference(a.options, b.options);
  if (options) return options;
  const parts = (p: GradedWith) => (p.parts ? p.parts.join(', ') : 'no parts recorded');
  if (parts(a) !== parts(b)) return `the parts ${parts(a)} instead of ${parts(b)}`;
  if (a.cases !== b.cases) return 'another case table';
  if (a.fixtures !== b.fixtures) return 'other fixtures';
  return undefined;
}
