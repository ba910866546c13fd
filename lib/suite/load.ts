/**
 * The submission `npm test` grades, loaded as the grader loads it: the grader's intake reads the
 * folder (lib/intake), the grader's check decides whether it can load (lib/sandbox/loadCheck.ts),
 * and only then does vite import it, with the grader's order of extensions (vitest.config.mts), so
 * it loads the files the grader loads. Whatever stops the grader stops every test here, in its
 * words: a student never sees `npm test` pass on a folder the grader gives 0.
 *
 * The folder is `student/` unless ATTENTION_SUBMISSION names another (`reference` for the
 * self-tests, or any submission folder or upload the grader would take).
 */
import path from 'node:path';
import { IntakeError, takeSubmission } from '../intake/intake';
import { locateSubmission } from '../intake/upload';
import { thrownWords } from '../grading/hangWords';
import { checkSubmission, loadVerdict, type LoadCheck } from '../sandbox/loadCheck';
import type { ErrorInfo } from '../sandbox/protocol';

/** The submission cannot run; the message is the grader's reason for every test, `status` its status. */
export class LoadFailure extends Error {
  override name = 'LoadFailure';
  constructor(readonly status: 'refused' | 'error' | 'crashed', reason: string) {
    super(reason);
    this.stack = `${this.name}: ${reason}`;
  }
}

/** The folder ATTENTION_SUBMISSION names (default `student`), as given, from the assignment's folder `root`. */
export function chosenFolder(root: string): string {
  return path.resolve(root, process.env.ATTENTION_SUBMISSION || 'student');
}

export interface Checked {
  /** The folder holding the entry (the intake may find it a few folders down in an upload). */
  root: string;
  /** The entry file, absolute. */
  entryFile: string;
  /** How the grader names the entry in messages, e.g. `student/index.ts`. */
  entryName: string;
  /** How the grader names the submission's folder in messages, e.g. `student` (lib/text/place.ts). */
  label: string;
  check: LoadCheck;
}

/** The chosen submission read and checked as the grader does; throws LoadFailure with the grader's words. */
export function checkChosen(folder: string): Checked {
  let submission;
  let root: string;
  try {
    submission = takeSubmission(folder, path.basename(folder));
    // Where in the upload the intake found the entry (a folder holding student/, a repository zip).
    root = locateSubmission(folder, path.basename(folder)).root;
  } catch (err) {
    if (!(err instanceof IntakeError)) throw err;
    throw new LoadFailure(err.kind === 'missing' ? 'error' : 'refused', err.message);
  }
  const check = checkSubmission({ files: Object.fromEntries(submission.files), entry: submission.entry, label: submission.label });
  const verdict = loadVerdict(check);
  if (verdict) throw new LoadFailure(verdict.status, verdict.reason);
  return { root, entryFile: path.join(root, submission.entry), entryName: `${submission.label}/${submission.entry}`, label: submission.label, check };
}

/**
 * Why the module threw while it loaded, in the grader's words for the same failure, from its
 * description (lib/sandbox/errorInfo.ts), as the grader's child describes what a module threw: made
 * while the import is still watched (loadWatchdog.ts), since reading it runs the student's getters.
 */
export function loadError(error: ErrorInfo): LoadFailure {
  return new LoadFailure('error', thrownWords(error, true));
}
