/**
 * Run by lastGuard.test.ts in a process of its own (vitest counts any uncaught error as a failure
 * of its run): a batch of three, one at a time, where an error escapes every handler while the
 * second submission is being graded. Prints the batch's outcome as JSON.
 */
import { gradeBatch } from '../../lib/batch/gradeBatch';
import { gradeOptions } from './harness';

const [submissions, out] = process.argv.slice(2);
let fired = false;
gradeBatch(submissions, out, {
  ...gradeOptions(),
  jobs: 1,
  force: true,
  onDone: () => {
    if (fired) return;
    fired = true;
    // Thrown outside any handler, as a listener of a child's socket once did.
    setTimeout(() => {
      throw new Error('an error no handler caught');
    }, 50);
  },
}).then(
  (outcome) => console.log(JSON.stringify({ graderErrors: outcome.graderErrors, graded: outcome.graded.map((r) => [r.name, r.score, r.status, r.feedback[0]]) })),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
