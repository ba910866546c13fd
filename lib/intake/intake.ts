/**
 * The one way a submission enters the grader, for `npm run grade`, a batch and Gradescope alike:
 * find it in the upload (upload.ts), read its folder without following anything (folder.ts), and
 * fingerprint what was read. From here on nothing touches the submission's files again: the code
 * travels as text, so a file swapped after intake changes nothing.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { readSubmissionFolder } from './folder';
import { locateSubmission } from './upload';

export { IntakeError } from './folder';

export interface Submission {
  /** How the submission's folder is named in messages and stack traces, e.g. "student" (lib/text/place.ts). */
  label: string;
  /** The entry file, relative to the folder: index.ts or index.js. */
  entry: string;
  /** Code files by posix path relative to the folder, as UTF-8 text. */
  files: Map<string, string>;
  /** sha256 of every code file with its path: a changed submission has another. */
  sha256: string;
  /** Notes for the student about the upload (files the grader ignores). */
  notes: string[];
}

/** sha256 over the files in path order, each as its path, its length and its bytes. */
export function contentHash(files: ReadonlyMap<string, Buffer>): string {
  const hash = createHash('sha256');
  for (const name of [...files.keys()].sort()) {
    const bytes = files.get(name)!;
    hash.update(`${name}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest('hex');
}

/**
 * Throws IntakeError (one line naming the file and the fix) when the upload cannot be graded as it
 * is. Messages name the submission's folder (its label) as the student knows it: the folder holding
 * the entry, `student` in an upload of their repository; in a batch (`byName`), by the submission's
 * own name wherever its entry sits, so that no two submissions of a report read alike.
 */
export function takeSubmission(upload: string, shown = path.basename(upload), byName = false): Submission {
  const located = locateSubmission(upload, shown);
  const label = byName || located.relative === '' ? shown : path.posix.basename(located.relative);
  const bytes = readSubmissionFolder(located.root, label);
  const files = new Map([...bytes].map(([name, data]) => [name, data.toString('utf8')]));
  return { label, entry: located.entry, files, sha256: contentHash(bytes), notes: located.notes };
}
