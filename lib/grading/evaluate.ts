/**
 * The verdict on one graded case: the output is checked against the expected values and the case's
 * property checks. This runs where points are decided, never inside student code.
 */
import {
  checkClose,
  checkMaskEqual,
  checkMaskedAreZero,
  checkRowsSumToOne,
  checkShape,
  leadingColumns,
  type CheckOutcome,
  type Values,
} from '../compare';
import type { GradedCase } from '../../tests/cases';

export interface Verdict {
  passed: boolean;
  checks: CheckOutcome[];
  /** The failing checks' messages, one per line; empty when passed. */
  message: string;
}

export interface Evidence {
  expected: Values;
  inputs: Record<string, Values>;
}

function runChecks(graded: GradedCase, output: Values, { expected, inputs }: Evidence): CheckOutcome[] {
  const shape = checkShape(output, expected);
  if (!shape.passed) return [shape];
  const outcomes = [
    graded.fn === 'causal_mask' ? checkMaskEqual(output, expected) : checkClose(output, expected, graded.tolerance),
  ];
  // V is [identity | more columns] in a probability case: the first n_k output columns are the probabilities.
  const probs = graded.checks.length ? leadingColumns(output, inputs.k.shape[inputs.k.shape.length - 2]) : output;
  for (const check of graded.checks) {
    if (check === 'rows_sum_to_one') outcomes.push(checkRowsSumToOne(probs, inputs.mask));
    // A probability case always has a mask: the fixture generator refuses one without.
    if (check === 'masked_are_zero') outcomes.push(checkMaskedAreZero(probs, inputs.mask));
  }
  return outcomes;
}

export function evaluateCase(graded: GradedCase, output: Values, evidence: Evidence): Verdict {
  const checks = runChecks(graded, output, evidence);
  const failed = checks.filter((c) => !c.passed);
  return { passed: failed.length === 0, checks, message: failed.map((c) => c.message).join('\n') };
}
