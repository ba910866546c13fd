/**
 * The submissions of a batch folder: every subfolder (and every link in place of one: the intake
 * refuses it with a reason, and it gets its row), named as lib/intake/names.ts reads names, so a
 * folder whose name is not UTF-8 is a submission of its own (refused with a reason) rather than
 * another's name or a crash. Names starting with `.` are the folder's own (`.fetched.json`, `.git`)
 * and are not submissions; nor is a folder that holds a batch's results (its gradebook beside its
 * folder of results), left there by a run whose --out was inside the submissions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GraderError } from '../errors';
import { listNames, type NamedEntry } from '../intake/names';
import { NameMatcher } from '../text/nameMatch';
import { GRADES_CSV, SUBMISSIONS_DIR } from '../report/layout';

/** Whether `dir` is a batch's output: grades.csv beside submissions/, neither followed if a link. */
export function isBatchOutput(dir: string): boolean {
  const kind = (name: string) => fs.lstatSync(path.join(dir, name), { throwIfNoEntry: false });
  return Boolean(kind(GRADES_CSV)?.isFile() && kind(SUBMISSIONS_DIR)?.isDirectory());
}

function subfolders(dir: string): NamedEntry[] {
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new GraderError(`submissions folder ${dir} not found: pass a folder with one subfolder per submission`);
  }
  return listNames(dir).filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.'));
}

export function listSubmissions(dir: string): string[] {
  return subfolders(dir).filter((e) => !(e.isDirectory() && isBatchOutput(path.join(dir, e.name)))).map((e) => e.name);
}

/** The subfolders of a batch folder that listSubmissions leaves out as a batch's output. */
export function batchOutputsIn(dir: string): string[] {
  return subfolders(dir).filter((e) => e.isDirectory() && isBatchOutput(path.join(dir, e.name))).map((e) => e.name);
}

/**
 * Groups of submissions whose names differ only by case, surrounding spaces or Unicode form: each
 * is graded as its own, with files of its own (lib/report/layout.ts), but a person reading the
 * gradebook, or a roster matching names loosely, would take them for one.
 */
export function lookalikeNames(names: readonly string[]): string[][] {
  return new NameMatcher(names).lookalikes();
}
