/** Shared set-up for the grader's self-tests: one child runtime and one fixture load per file. */
import { gradeSubmission, loadCaseFixtures, prepareChild, type GradeOptions } from '../../lib/grading/grade';
import type { SubmissionResult } from '../../lib/grading/result';
import { visibleCases } from '../../tests/cases';

let options: GradeOptions | undefined;

export function gradeOptions(overrides: Partial<GradeOptions> = {}): GradeOptions {
  const cases = visibleCases();
  // No type check per grading: dozens of concurrent checking processes would only slow these
  // tests down; typeNotes.test.ts checks the notes through the grader.
  options ??= { cases, fixtures: loadCaseFixtures(cases), child: prepareChild(), timeoutMs: 5000, outputCap: 4096, typeNotes: async () => [] };
  return { ...options, ...overrides };
}

export function grade(dir: string, name: string, overrides: Partial<GradeOptions> = {}): Promise<SubmissionResult> {
  return gradeSubmission(dir, name, gradeOptions(overrides));
}

/** The result without what changes from run to run or machine to machine (timings, containment). */
export function stable(result: SubmissionResult): SubmissionResult {
  // The containment says what this machine allows: the same on every run here, but not everywhere.
  const { containment: _, ...rest } = result;
  return { ...rest, executionTimeMs: 0, cases: result.cases.map((c) => ({ ...c, durationMs: 0 })) };
}
