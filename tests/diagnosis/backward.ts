/**
 * Diagnoses a failing test of the gradients part under the forward pass's rule: say only what the
 * probes measured (which of dQ, dK and dV is wrong, where, by what constant factor), and name a
 * cause only when a counterfactual run of the student's own function confirms it. The
 * counterfactuals are variants whose exact gradients are known from the stored ones without
 * computing any (backwardCase.ts), or changes that move no gradient at all (every dy of a softmax
 * slice shifted by one number, every row of V by one vector): an answer that moves shows the code.
 */
import type { GradedCase } from '../../lib/assignment/cases';
import type { Values } from '../../lib/compare';
import type { Diagnosis, Outcome } from '../../lib/diagnosis/explain';
import type { LoadedFixture } from '../../lib/model/fixtures';
import { probeOutput, type ProbeContext } from '../../lib/diagnosis/probe';
import type { Tensor } from '../../lib/tensor';
import { attentionBackwardFindings, type Finding } from './backwardAttention';
import { backwardMessageOf } from './backwardMistakes';
import { near } from './backwardCase';

/** A shift that moves no softmax gradient, big enough to move a wrong one far past the tolerance. */
const SHIFT = 1;

/** dim moved to the end (the permutation and its inverse), so a sum along the last dim is a sum along dim. */
function movedLast(t: Tensor, dim: number): Tensor {
  const axis = dim < 0 ? dim + t.ndim : dim;
  const order = [...Array(t.ndim).keys()].filter((a) => a !== axis);
  return t.permute(...order, axis);
}

function movedBack(t: Tensor, dim: number): Tensor {
  const axis = dim < 0 ? dim + t.ndim : dim;
  const order = [...Array(t.ndim).keys()].filter((a) => a !== axis);
  const inverse = new Array<number>(t.ndim);
  [...order, axis].forEach((from, to) => (inverse[from] = to));
  return t.permute(...inverse);
}

async function softmaxBackwardFindings(graded: GradedCase, fixture: LoadedFixture, output: Values, context: ProbeContext): Promise<Finding[]> {
  const { y, dy } = fixture.inputs;
  const { dim } = fixture.params;
  const tol = graded.tolerance;
  const bound = fixture.bound()?.data;
  const call = (inputs: Record<string, Tensor>, at = dim) => probeOutput(context, 'softmax_backward', { params: { dim: at }, inputs });
  const shifted = await call({ y, dy: dy.astype('float64').add(SHIFT) });
  // The exact gradient does not move; it is the stored one, up to y·(1 − Σy) from y's float32 rounding.
  const moves = shifted !== undefined && !near(shifted, fixture.expected, tol, bound);
  const elementwise = y.astype('float64').mul(dy);
  if (moves && near(output, elementwise, tol)) {
    return [{ id: 'softmax_backward_no_correction', evidence: `Your gradient is y ⊙ dy, and with ${SHIFT} added to every dy it changes, where the gradient of a softmax does not` }];
  }
  const ndim = y.ndim;
  const axis = dim < 0 ? dim + ndim : dim;
  // Right with dim moved last, and the same answer whatever dim it is given: it sums along the last dim.
  if (axis !== ndim - 1 && !near(output, fixture.expected, tol, bound) && near(await call({ y, dy }, -1), output, tol)) {
    const last = await call({ y: movedLast(y, dim), dy: movedLast(dy, dim) }, -1);
    if (last && last.ndim === ndim && near(movedBack(last, dim), fixture.expected, tol, bound)) {
      return [{ id: 'softmax_backward_wrong_dim', evidence: `Given dim -1 instead of ${dim} it answers the same, and with dim ${dim} moved last its gradient is right` }];
    }
  }
  if (moves) return [{ id: 'softmax_backward_shift_moves', evidence: `With ${SHIFT} added to every dy, your gradient changes` }];
  return [];
}

function diagnosisOf(findings: readonly Finding[]): Diagnosis | undefined {
  if (findings.length === 0) return undefined;
  const say = (f: Finding) => (f.evidence ? `${backwardMessageOf(f.id)} (${f.evidence}.)` : backwardMessageOf(f.id));
  return { mistake: findings.map((f) => f.id).join('+'), message: findings.map(say).join(' Also: ') };
}

/** The diagnosis of a failing softmaxBackward or scaledDotProductAttentionBackward case; undefined when nothing measured names a cause or a fact. */
export async function diagnoseBackward(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome, context: ProbeContext): Promise<Diagnosis | undefined> {
  if (graded.fn === 'softmax_backward') {
    if (outcome.kind !== 'output') return undefined;
    return diagnosisOf(await softmaxBackwardFindings(graded, fixture, outcome.output, context));
  }
  return diagnosisOf(await attentionBackwardFindings(graded, fixture, outcome, context));
}
