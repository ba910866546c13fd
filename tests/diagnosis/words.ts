/**
 * Words this assignment says in more than one place: what to do about a function that changes its
 * inputs (the diagnosis, and the grader's note on any graded call that did), and how the student's
 * code names each input. Light on purpose: the declaration (tests/assignment.ts) loads it with npm
 * test, the rest of the diagnosis only when a test fails.
 */
import { FUNCTIONS } from '../../adapters/functions';
import { inputNames } from '../../lib/assignment/functions';
import { changedInputsWords } from '../../lib/grading/hangWords';

/** What to do about a function that changes its inputs: one sentence for the diagnosis and the grader's note alike. */
export const INPUTS_CHANGED_FIX =
  'Leave your inputs as they were given and write into new arrays or tensors (Float64Array.from(mask.data) is a copy; the tensor methods always return new tensors): a caller may use them again, as multi-head attention passes one mask to every head.';

/** How the student's code names each input of any function's case (q is Q, q_proj is weights.qProj), from the specs. */
const INPUT_NAMES: Readonly<Record<string, string>> = Object.assign({}, ...FUNCTIONS.map(inputNames));

/** The inputs a call changed, as the student names them, each with where it first changed: "mask, first at [0, 2, 5]". */
export const changedWords = (changes: readonly { name: string; at: number }[], shapes: Readonly<Record<string, readonly number[]>>): string =>
  changedInputsWords(INPUT_NAMES, changes, shapes);
