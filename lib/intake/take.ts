/**
 * A submission read once by the intake, or why it could not be: what a batch hashes, type-checks
 * and grades (and the similarity check compares), so every step sees one snapshot of the folder.
 */
import { createHash } from 'node:crypto';
import { IntakeError, takeSubmission, type Submission } from './intake';
import { notText } from './names';
import { showName } from '../text/sanitise';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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
