/**
 * Grades an implementation module in this process with the suite's own pieces (adapters, table,
 * evaluate): the self-tests' fast way to hold the catalogue to the suite. The real vitest suite is
 * also run on the reference and the stubs (suite.test.ts).
 */
import { bindAdapters, type Submission } from '../adapters';
import { evaluateCase } from '../lib/grading/evaluate';
import { loadFixture } from '../lib/grading/fixtures';
import { invokeCase } from '../lib/grading/invoke';
import { GRADED_CASES, type GradedCase } from '../tests/cases';

export interface CaseResult {
  graded: GradedCase;
  passed: boolean;
  message: string;
}

export function gradeInProcess(impl: Partial<Submission>, label: string, cases = GRADED_CASES): CaseResult[] {
  const adapters = bindAdapters(impl, label);
  return cases.map((graded) => {
    const fixture = loadFixture(graded.fixture);
    try {
      const verdict = evaluateCase(graded, invokeCase(graded.fn, fixture, adapters), fixture);
      return { graded, passed: verdict.passed, message: verdict.message };
    } catch (err) {
      return { graded, passed: false, message: `${(err as Error)?.name}: ${(err as Error)?.message ?? String(err)}` };
    }
  });
}
