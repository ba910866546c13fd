/** Shared set-up for the grader's self-tests: one child runtime and one fixture load per file. */
import { gradeSubmission, loadCaseFixtures, prepareChild, type GradeOptions } from '../../lib/grading/grade';
import type { SubmissionResult } from '../../lib/model/result';
import { takeSubmission } from '../../lib/intake/intake';
import { ChildSession } from '../../lib/sandbox/session';
import { transpileInChild } from '../../lib/sandbox/transpilePool';
import { ASSIGNMENT } from '../../tests/assignment';
import { visibleCases } from '../../tests/cases';

let options: GradeOptions | undefined;

export function gradeOptions(overrides: Partial<GradeOptions> = {}): GradeOptions {
  const cases = visibleCases();
  // No type check per grading: dozens of concurrent checking processes would only slow these
  // tests down; typeNotes.test.ts checks the notes through the grader.
  options ??= { assignment: ASSIGNMENT, cases, fixtures: loadCaseFixtures(ASSIGNMENT, cases), child: prepareChild(), timeoutMs: 5000, outputCap: 4096, typeNotes: async () => [] };
  return { ...options, ...overrides };
}

export function grade(dir: string, name: string, overrides: Partial<GradeOptions> = {}): Promise<SubmissionResult> {
  return gradeSubmission(dir, name, gradeOptions(overrides));
}

/** A session of the submission in `dir`, transpiled and set, its child not started yet: for tests of the session itself. */
export async function sessionFor(dir: string, overrides: Partial<GradeOptions> = {}): Promise<ChildSession> {
  const submission = takeSubmission(dir);
  const job = { files: Object.fromEntries(submission.files), entry: submission.entry, label: submission.label };
  const transpiled = await transpileInChild(job, 30_000);
  if (transpiled.kind !== 'done') throw new Error(`could not transpile ${dir}`);
  const session = new ChildSession({ ...gradeOptions(overrides), functions: ASSIGNMENT.functions });
  session.setSubmission(transpiled.prepared.load);
  return session;
}

/** The result without what changes from run to run or machine to machine (timings, containment). */
export function stable(result: SubmissionResult): SubmissionResult {
  // The containment says what this machine allows: the same on every run here, but not everywhere.
  const { containment: _, ...rest } = result;
  return { ...rest, executionTimeMs: 0, cases: result.cases.map((c) => ({ ...c, durationMs: 0 })) };
}
