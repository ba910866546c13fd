/**
 * One Gradescope run: grade `<root>/submission` with every case, hidden ones included, and write
 * `<root>/results/results.json`; with the bundle's late policy, the score is what is left after
 * the penalty for the time and due date of `<root>/submission_metadata.json`. Following otter-grader, every failure becomes a result: a broken
 * submission is graded 0 with its reasons (gradeSubmission), and a failure of the autograder
 * itself becomes the "Autograder error" result, so Gradescope always has a file to read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { checkChildStarts, DEFAULT_MEMORY_BYTES, gradeSubmission, loadCaseFixtures, prepareChild, type GradeOptions } from '../grading/grade';
import { containmentBlock } from '../report/containment';
import { toGradescope } from '../report/gradescope';
import { containmentReport } from '../sandbox/containment';
import { formatTable } from '../report/terminal';
import type { Assignment } from '../grading/assignment';
import { parseLatePolicy, withLatePenalty, type LatePolicy } from '../late/policy';
import { gradescopeTime } from '../late/times';
import { PROJECT_ROOT } from '../paths';
import { autograderErrorResults, writeResults } from './errorResults';

/** What `npm run gradescope -- --late-policy …` put in the bundle (bundle.ts), read from the grader's own folder. */
export const AUTOGRADER_OPTIONS = 'autograder-options.json';

/** The bundle's late policy, if it has one; a policy this grader cannot read is the autograder's failure. */
function bundledLatePolicy(): LatePolicy | undefined {
  const file = path.join(PROJECT_ROOT, AUTOGRADER_OPTIONS);
  if (!fs.existsSync(file)) return undefined;
  const text = (JSON.parse(fs.readFileSync(file, 'utf8')) as { late_policy?: unknown }).late_policy;
  if (text === undefined) return undefined;
  const policy = parseLatePolicy(String(text), false);
  if (typeof policy === 'string') throw new Error(`${AUTOGRADER_OPTIONS}: ${policy}`);
  return policy;
}

/** As `npm run grade`: Gradescope's own limit for the whole run is set per assignment (default 10 min). */
const TIMEOUT_MS = 10_000;
const OUTPUT_CAP = 4096;

/**
 * Rejects on an error nothing else caught (an 'error' event with no listener, a stray rejection),
 * so that it too ends as a result instead of a crash without results.json.
 */
function strayError(): { promise: Promise<never>; dispose: () => void } {
  let fail: (err: unknown) => void = () => {};
  const promise = new Promise<never>((_, reject) => {
    fail = reject;
  });
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  return {
    promise,
    dispose: () => {
      process.off('uncaughtException', fail);
      process.off('unhandledRejection', fail);
    },
  };
}

async function grade(assignment: Assignment, root: string) {
  // The upload and the results folder are nothing the student's code needs to see, even by name.
  const hide = [path.join(root, 'submission'), path.join(root, 'results'), os.tmpdir()];
  fs.mkdirSync(path.join(root, 'results'), { recursive: true });
  const child = prepareChild(DEFAULT_MEMORY_BYTES, hide);
  // Gradescope shows this log to instructors only.
  for (const line of containmentBlock(containmentReport(child))) console.log(`autograde: ${line}`);
  // A child that cannot start is the autograder's failure (an "Autograder error" result), not the student's crash.
  await checkChildStarts(child, false);
  const options: GradeOptions = { assignment, cases: assignment.cases, fixtures: loadCaseFixtures(assignment, assignment.cases), child, timeoutMs: TIMEOUT_MS, outputCap: OUTPUT_CAP };
  const policy = bundledLatePolicy();
  const result = await gradeSubmission(path.join(root, 'submission'), 'submission', options);
  // Gradescope's metadata says when this submission was made and when it was due for this student (an extension included).
  return policy ? withLatePenalty(result, policy, gradescopeTime(path.join(root, 'submission_metadata.json'))) : result;
}

/** Writes results.json in every case; throws only when even that fails (results/ not writable). */
export async function autograde(assignment: Assignment, root: string): Promise<void> {
  const write = (doc: object) => writeResults(root, doc);
  const stray = strayError();
  try {
    const graded = grade(assignment, root);
    graded.catch(() => {}); // when a stray error wins the race, this one is no longer news
    const result = await Promise.race([graded, stray.promise]);
    console.log(formatTable(result, { color: false }));
    write(toGradescope(result));
  } catch (err) {
    // inspect, not the stack alone: the causes (a module that did not load under a package that did) are the news.
    const details = inspect(err, { depth: 6 });
    console.log(`autograde: the autograder failed: ${details}`);
    write(autograderErrorResults(details, assignment.cases.reduce((sum, c) => sum + c.points, 0)));
  } finally {
    stray.dispose();
  }
}
