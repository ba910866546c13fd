/**
 * The results.json Gradescope gets when the autograder itself fails (fixtures tampered with, a
 * package missing, a bug of ours), as opposed to a submission that fails: students see one test
 * named "Autograder error" that says it is not their code; the cause is in a second test that only
 * instructors see. Shaped by the same spec as lib/report/gradescope.ts and its schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fsAtomic';
import type { GradescopeVisibility } from '../report/gradescope';

export const AUTOGRADER_ERROR_TEST = 'Autograder error';

const FOR_STUDENTS =
  'The autograder failed before it could grade your submission. This is not a problem with your code: ' +
  'your instructor can see what went wrong and will regrade it.';

export interface AutograderErrorResults {
  score: 0;
  max_score: number;
  output: string;
  output_format: 'text';
  tests: { name: string; score: 0; max_score: number; status: 'failed'; output: string; visibility: GradescopeVisibility }[];
  extra_data: { submission_status: 'error'; autograder_error: true; max_score: number };
}

/**
 * How much of an error instructors are shown (characters): the whole of any error Node prints for
 * a package that cannot load, while a run that printed megabytes still leaves a results.json
 * Gradescope reads. run_autograder's fallback (scripts/autograde-failed.js) is handed the same.
 */
export const DETAILS_LIMIT = 8000;

/** `text` within DETAILS_LIMIT: its start (what failed) and its end (the causes) kept, the middle left out. */
export function boundedDetails(text: string): string {
  if (text.length <= DETAILS_LIMIT) return text;
  const half = Math.floor(DETAILS_LIMIT / 2) - 40;
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}

/** `details` is for instructors only (it may hold paths and stack traces); `maxScore` is the assignment's total. */
export function autograderErrorResults(details: string, maxScore: number): AutograderErrorResults {
  return {
    score: 0,
    max_score: maxScore,
    output: FOR_STUDENTS,
    output_format: 'text',
    tests: [
      { name: AUTOGRADER_ERROR_TEST, score: 0, max_score: maxScore, status: 'failed', output: FOR_STUDENTS, visibility: 'visible' },
      { name: `${AUTOGRADER_ERROR_TEST}: details for instructors`, score: 0, max_score: 0, status: 'failed', output: boundedDetails(details), visibility: 'hidden' },
    ],
    extra_data: { submission_status: 'error', autograder_error: true, max_score: maxScore },
  };
}

/** Writes `<root>/results/results.json` whole: Gradescope never reads half of one. */
export function writeResults(root: string, doc: object): void {
  const file = path.join(root, 'results', 'results.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomic(file, `${JSON.stringify(doc, null, 2)}\n`);
}
