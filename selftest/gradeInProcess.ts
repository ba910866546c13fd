/**
 * Grades an implementation module in this process with the suite's own pieces (adapters, table,
 * evaluate, diagnosis): the self-tests' fast way to hold the catalogue to the suite. The real vitest
 * suite is also run on the reference and the stubs (suite.test.ts).
 */
import type { Submission } from '../adapters';
import { explain, type Diagnosis } from '../lib/diagnosis/explain';
import { DIAGNOSIS } from '../tests/diagnosis/diagnose';
import { NotImplementedError, ResultError } from '../lib/errors';
import { judgeValue } from '../lib/grading/verdict';
import type { LoadedFixture } from '../lib/model/fixtures';
import { InProcessSession, inProcessContext } from '../lib/grading/inProcess';
import { probeOf } from '../lib/suite/submission';
import type { Tensor } from '../lib/tensor';
import { ASSIGNMENT } from '../tests/assignment';
import { GRADED_CASES, type GradedCase } from '../tests/cases';
import { caller } from './calls';
import { storedFixture } from './storedFixtures';

export interface CaseResult {
  graded: GradedCase;
  fixture: LoadedFixture;
  passed: boolean;
  message: string;
  /** What the function returned, when the adapter could read it. */
  output?: Tensor;
  /** The known mistake a failure shows, as the suite and the grader would name it. */
  diagnosis?: Diagnosis;
}

/**
 * `fixtureOf`: where a case's inputs and expected values come from (a drawn case's, for --variants);
 * its stored fixture by default. `probed`: the instance the diagnosis calls, one of its own as in
 * npm test and the grader (code that keeps state must meet a fresh one); `impl` itself by default,
 * for callers whose code keeps none.
 */
export async function gradeInProcess(
  impl: Partial<Submission>, label: string, cases = GRADED_CASES, fixtureOf: (graded: GradedCase) => LoadedFixture = storedFixture,
  probed: Partial<Submission> = impl,
): Promise<CaseResult[]> {
  const call = caller(impl, label);
  const context = inProcessContext(probeOf(ASSIGNMENT, probed, label), new InProcessSession(probed, ASSIGNMENT.functions, label), ASSIGNMENT);
  const results: CaseResult[] = [];
  for (const graded of cases) results.push(await gradeCase(graded));
  return results;

  async function gradeCase(graded: GradedCase): Promise<CaseResult> {
    const fixture = fixtureOf(graded);
    let output: Tensor;
    try {
      output = call(graded.fn, fixture);
    } catch (err) {
      const { name, message } = err instanceof Error ? err : { name: 'thrown', message: String(err) };
      if (err instanceof NotImplementedError) return { graded, fixture, passed: false, message: `${name}: ${message}` };
      const { diagnosis } = await explain(DIAGNOSIS, graded, fixture, { kind: err instanceof ResultError ? 'unreadable' : 'threw', name, message }, context);
      return { graded, fixture, passed: false, message: `${name}: ${message}`, diagnosis };
    }
    const verdict = judgeValue(ASSIGNMENT, graded, [{ name: graded.fn, value: output }], fixture);
    const passed = verdict.status === 'passed';
    const { diagnosis } = passed ? {} : await explain(DIAGNOSIS, graded, fixture, { kind: 'output', output }, context);
    return { graded, fixture, passed, message: [verdict.reason, verdict.details].filter(Boolean).join('\n'), output, diagnosis };
  }
}
