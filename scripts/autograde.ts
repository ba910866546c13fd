/**
 * Gradescope's per-submission entry (run_autograder launches it): grades AUTOGRADER_ROOT/submission
 * (default /autograder) with every case of the bundle's assignment, hidden ones included, and
 * writes AUTOGRADER_ROOT/results/results.json, an "Autograder error" result when grading itself
 * failed. Exits 0 whenever results.json was written.
 */
import { inspect } from 'node:util';
import { autograderErrorResults, writeResults } from '../lib/gradescope/errorResults';
import type { Assignment } from '../lib/grading/assignment';

const root = process.env.AUTOGRADER_ROOT || '/autograder';

function cannotWrite(err: unknown): never {
  // Not even the error result could be written: run_autograder's fallback stands in.
  console.error(`autograde: could not write results.json: ${inspect(err)}`);
  process.exit(1);
}

type Grader = typeof import('../lib/gradescope/autograde');
let graded: { grader: Grader; assignment: Assignment } | undefined;
try {
  // Required, not imported: a module of the grader (or the assignment's declaration) that cannot
  // load (a package, or its native code, missing from the install) is then an "Autograder error"
  // that says which, like any failure of ours.
  const { loadAssignment } = require('../lib/grading/loadAssignment') as typeof import('../lib/grading/loadAssignment');
  graded = { assignment: loadAssignment(undefined, 'throw'), grader: require('../lib/gradescope/autograde') as Grader };
} catch (err) {
  const details = `autograde: the grader's modules could not load: ${inspect(err, { depth: 6 })}`;
  console.log(details);
  // The points at stake, when the case table at least can be read.
  let maxScore = 0;
  try {
    maxScore = (require('../tests/cases') as { GRADED_CASES: { points: number }[] }).GRADED_CASES.reduce((sum, c) => sum + c.points, 0);
  } catch {
    // no case table either: the result says 0 of 0, and the detail says why
  }
  try {
    writeResults(root, autograderErrorResults(details, maxScore));
  } catch (writeErr) {
    cannotWrite(writeErr);
  }
}

// exit() rather than waiting: a child left over from a failed run must not keep Gradescope waiting.
if (graded) graded.grader.autograde(graded.assignment, root).then(() => process.exit(0), cannotWrite);
else process.exit(0);
