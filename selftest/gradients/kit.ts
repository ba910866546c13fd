/**
 * The gradients part as the self-tests grade it: the assignment with the part's functions and
 * cases, and an implementation graded in this process as npm test grades it (each call through the
 * suite's own session, read and judged by the verdict, a failure explained by the assignment's
 * diagnosis probing an instance of its own).
 */
import { GRADIENT_IDS } from '../../adapters/gradients';
import type { GradedCase } from '../../lib/assignment/cases';
import { explain, type Diagnosis } from '../../lib/diagnosis/explain';
import type { Assignment } from '../../lib/grading/assignment';
import { InProcessSession, inProcessContext } from '../../lib/grading/inProcess';
import { judgeValue } from '../../lib/grading/verdict';
import { loadFixture, type LoadedFixture } from '../../lib/model/fixtures';
import { probeOf } from '../../lib/suite/submission';
import { assignmentWith } from '../../tests/assignment';

/** The assignment with the gradients part switched on beside the core (tests/parts.ts), whatever the switch says. */
export const WITH_GRADIENTS: Assignment = assignmentWith(['core', 'gradients']);

/** The gradients part's cases, in the table's order. */
export const GRADIENT_CASES = WITH_GRADIENTS.cases.filter((c) => GRADIENT_IDS.has(c.fn));

export interface GradedResult {
  graded: GradedCase;
  fixture: LoadedFixture;
  passed: boolean;
  /** The verdict's reason and details, as a student reads them. */
  message: string;
  diagnosis?: Diagnosis;
  /** What the failure note says beyond the verdict (the diagnosis, or what the output shows). */
  note: string;
}

/**
 * Grades `impl` on `cases` (the part's own by default) in this process; `probed`: the instance the
 * diagnosis calls (its own, as npm test's; `impl` by default, for code that keeps no state).
 */
export async function gradeGradients(
  impl: object, label: string, cases: readonly GradedCase[] = GRADIENT_CASES,
  fixtureOf: (graded: GradedCase) => LoadedFixture = (graded) => loadFixture(graded.fixture), probed: object = impl,
): Promise<GradedResult[]> {
  const session = new InProcessSession(impl, WITH_GRADIENTS.functions, label);
  const context = inProcessContext(probeOf(WITH_GRADIENTS, probed, label), new InProcessSession(probed, WITH_GRADIENTS.functions, label), WITH_GRADIENTS);
  const diagnoser = await WITH_GRADIENTS.diagnosis!();
  const results: GradedResult[] = [];
  for (const graded of cases) {
    const fixture = fixtureOf(graded);
    const outcome = session.call(graded.fn, fixture);
    if (outcome.kind === 'value') {
      const verdict = judgeValue(WITH_GRADIENTS, graded, outcome.value, fixture);
      const passed = verdict.status === 'passed';
      const explained = passed || !verdict.evidence ? { note: '' } : await explain(diagnoser, graded, fixture, verdict.evidence, context);
      results.push({ graded, fixture, passed, message: [verdict.reason, verdict.details].filter(Boolean).join('\n'), diagnosis: explained.diagnosis, note: explained.note });
    } else if (outcome.kind === 'threw') {
      const failure = { kind: outcome.unreadable ? 'unreadable' as const : 'threw' as const, name: outcome.error.name, message: outcome.error.message };
      const explained = await explain(diagnoser, graded, fixture, failure, context);
      results.push({ graded, fixture, passed: false, message: `${failure.name}: ${failure.message}`, diagnosis: explained.diagnosis, note: explained.note });
    } else {
      results.push({ graded, fixture, passed: false, message: outcome.kind, note: '' });
    }
  }
  return results;
}
