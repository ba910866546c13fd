/**
 * The submissions of a batch folder: every subfolder (and every link in place of one: the intake
 * refuses it with a reason, and it gets its row), named as lib/intake/names.ts reads names, so a
 * folder whose name is not UTF-8 is a submission of its own (refused with a reason) rather than
 * another's name or a crash. Names starting with `.` are the folder's own (`.fetched.json`, `.git`)
 * and are not submissions.
 */
import fs from 'node:fs';
import { GraderError } from '../errors';
import { listNames } from '../intake/names';
import { NameMatcher } from '../text/nameMatch';

export function listSubmissions(dir: string): string[] {
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new GraderError(`submissions folder ${dir} not found: pass a folder with one subfolder per submission`);
  }
  return listNames(dir)
    .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.'))
    .map((e) => e.name);
}

/**
 * Groups of submissions whose names differ only by case, surrounding spaces or Unicode form: each
 * is graded as its own, with files of its own (lib/batch/layout.ts), but a person reading the
 * gradebook, or a roster matching names loosely, would take them for one.
 */
export function lookalikeNames(names: readonly string[]): string[][] {
  return new NameMatcher(names).lookalikes();
}
