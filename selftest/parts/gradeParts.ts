/**
 * Grades a module in this process on any assignment's cases, tuple returns included, as npm test
 * does (lib/suite/gradedSuite.ts): the case engine with the in-process backend, then the
 * assignment's diagnosis on an instance of its own. The optional parts' self-tests grade with the
 * parts on whatever the switch says (tests/assignment.ts assignmentWith).
 */
import { explain, type Diagnosis, type Explanation } from '../../lib/diagnosis/explain';
import { CaseEngine } from '../../lib/grading/engine';
import { DEFAULT_BUDGET_MS, FunctionLedger } from '../../lib/grading/faults';
import { PER_TEST_LIMIT_MS } from '../../lib/grading/hangWords';
import { inProcessBackend, inProcessContext, InProcessSession } from '../../lib/grading/inProcess';
import type { Assignment } from '../../lib/grading/assignment';
import type { GradedCase } from '../../lib/assignment/cases';
import type { LoadedFixture } from '../../lib/model/fixtures';
import { DEFAULT_MEMORY_BYTES } from '../../lib/sandbox/outOfMemory';
import { probeOf } from '../../lib/suite/submission';
import { storedFixture } from '../storedFixtures';

export interface Graded {
  graded: GradedCase;
  passed: boolean;
  /** The verdict's reason and details, and the diagnosis's note, as npm test shows a failure. */
  message: string;
  diagnosis?: Diagnosis;
}

/**
 * Every case of `cases` graded for `impl` (`probed`: the instance the diagnosis calls), in order;
 * `fixtureOf`: a case's stored fixture by default, or a draw of it (--variants).
 */
export async function gradeParts(
  assignment: Assignment, impl: object, probed: object, label: string, cases: readonly GradedCase[],
  fixtureOf: (graded: GradedCase) => LoadedFixture = storedFixture,
): Promise<Graded[]> {
  const ledger = FunctionLedger.forCases(DEFAULT_BUDGET_MS, cases, assignment.functions);
  const engine = new CaseEngine(assignment, ledger, { timeoutMs: PER_TEST_LIMIT_MS, memoryBytes: DEFAULT_MEMORY_BYTES });
  const backend = inProcessBackend(new InProcessSession(impl, assignment.functions, label, { ledger }), process.cwd(), label);
  const context = inProcessContext(probeOf(assignment, probed, label), new InProcessSession(probed, assignment.functions, label), assignment);
  const diagnoser = await assignment.diagnosis?.();
  const results: Graded[] = [];
  for (const graded of cases) {
    const fixture = fixtureOf(graded);
    const { verdict } = await engine.run(graded, fixture, backend);
    const passed = verdict.status === 'passed';
    const explained: Partial<Explanation> = passed || !verdict.evidence ? {} : await explain(diagnoser, graded, fixture, verdict.evidence, context);
    const message = [verdict.reason, verdict.details, explained.note].filter(Boolean).join('\n');
    results.push({ graded, passed, message, ...(explained.diagnosis && { diagnosis: explained.diagnosis }) });
  }
  return results;
}
