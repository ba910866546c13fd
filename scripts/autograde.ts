/**
 * Gradescope's per-submission entry (run_autograder launches it): grades AUTOGRADER_ROOT/submission
 * (default /autograder) with every case, hidden ones included, and writes
 * AUTOGRADER_ROOT/results/results.json, an "Autograder error" result when grading itself failed.
 * Exits 0 whenever results.json was written.
 */
import { autograde } from '../lib/gradescope/autograde';
import { ASSIGNMENT } from '../tests/assignment';

const root = process.env.AUTOGRADER_ROOT || '/autograder';

// exit() rather than waiting: a child left over from a failed run must not keep Gradescope waiting.
autograde(ASSIGNMENT, root).then(
  () => process.exit(0),
  (err: unknown) => {
    // Not even the error result could be written: run_autograder's bundled copy stands in.
    console.error(`autograde: could not write results.json: ${(err as Error)?.stack ?? String(err)}`);
    process.exit(1);
  },
);
