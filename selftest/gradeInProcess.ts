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
import { caller, type Call } from './calls';
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
    const { thrown, ...judged } = judgeCase(call, graded, fixture);
    // A stub that says it is not implemented has nothing to diagnose.
    if (judged.passed || thrown instanceof NotImplementedError) return { graded, fixture, ...judged };
    const explained = judged.output
      ? await explain(DIAGNOSIS, graded, fixture, { kind: 'output', output: judged.output }, context)
      : await explain(DIAGNOSIS, graded, fixture, { kind: thrown instanceof ResultError ? 'unreadable' : 'threw', ...thrownWords(thrown) }, context);
    return { graded, fixture, ...judged, diagnosis: explained.diagnosis };
  }
}

export interface JudgedCase {
  passed: boolean;
  message: string;
  /** What the function returned, when the adapter could read it. */
  output?: Tensor;
  /** What it threw instead (the adapter's ResultError when the return could not be read). */
  thrown?: unknown;
}

const thrownWords = (err: unknown) => (err instanceof Error ? { name: err.name, message: err.message } : { name: 'thrown', message: String(err) });

/**
 * One case's verdict as the suite gives it, without a diagnosis: the function called through the
 * adapter, its return judged against the fixture, a throw a failure naming what was thrown.
 */
export function judgeCase(call: Call, graded: GradedCase, fixture: LoadedFixture): JudgedCase {
  let output: Tensor;
  try {
    output = call(graded.fn, fixture);
  } catch (thrown) {
    const { name, message } = thrownWords(thrown);
    return { passed: false, message: `${name}: ${message}`, thrown };
  }
  const verdict = judgeValue(ASSIGNMENT, graded, [{ name: graded.fn, value: output }], fixture);
  return { passed: verdict.status === 'passed', message: [verdict.reason, verdict.details].filter(Boolean).join('\n'), output };
}
