/**
 * Error carried forward, an instructor's choice (`--carry-forward`): a multi-head case whose own
 * code is right given the student's own scaledDotProductAttention earns its points. The grader
 * computes the projections, the split into heads and the merge itself (the contract's formulas,
 * in this process), asks the student's scaledDotProductAttention for the heads' outputs (in a
 * child, as every call), and compares the student's multi-head output with what that gives. The
 * heads are asked among siblings no child can tell them from, twice, each time in a fresh child,
 * and the answer must be attention-like (carryProbe.ts); otherwise nothing is carried. No
 * reference code runs in the child. The case passes with a reason that says where its points came
 * from; without the flag nothing here runs.
 */
import type { LoadedFixture } from '../../lib/model/fixtures';
import type { Tolerance, Values } from '../../lib/compare';
import { withinTolerance } from '../../lib/diagnosis/probe';
import { Tensor } from '../../lib/tensor';
import type { GradedCase } from '../../lib/assignment/cases';
import type { FreshCalls } from '../../lib/grading/assignment';
import { carryProblem, probeGrid, REAL, shuffled, type ProbeGrid } from './carryProbe';

export const CARRIED_REASON = 'points carried forward: your multi-head attention is right given your own scaledDotProductAttention';

/**
 * Every entry of the grid asked in `order`, in a child that has seen nothing before: the answers by
 * entry, or undefined as soon as one is not a tensor of the heads' shape (a throw, a hang, a crash).
 */
async function ask(session: FreshCalls, grid: ProbeGrid, order: readonly number[]): Promise<Tensor[] | undefined> {
  session.kill();
  const answers: Tensor[] = [];
  for (const entry of order) {
    const { q, k, v, mask } = grid.entries[entry];
    const outcome = await session.call('scaled_dot_product_attention', { params: {}, inputs: { q, k, v, ...(mask && { mask }) } });
    session.takeOutput();
    if (outcome.kind !== 'value') return undefined;
    // Only an answer of the promised shape carries its values (protocol.ts WireShape).
    const [answer] = outcome.value;
    if (!answer || !('data' in answer.value)) return undefined;
    const { shape, data } = answer.value;
    if (shape.length !== grid.shape.length || shape.some((n, i) => n !== grid.shape[i])) return undefined;
    answers[entry] = new Tensor(data, shape);
  }
  return answers;
}

/** The multi-head output of the case's heads' attention outputs [...batch, heads, seq, dHead]: merged, then projected. */
function merged(heads: Tensor, fixture: LoadedFixture): Tensor {
  const { x, o_proj } = fixture.inputs;
  const [seq, dModel] = x.shape.slice(-2);
  return heads.transpose(-3, -2).reshape(...x.shape.slice(0, -2), seq, dModel).matmul(o_proj.astype('float64').transpose(-2, -1));
}

/**
 * Whether `output` (the student's multi-head output for the case) is what its own attention gives:
 * right on the first ask's answer, then the same answer again and an attention-like one
 * (carryProbe.ts). A first answer it does not match needs no second ask.
 */
export async function rightOnOwnAttention(session: FreshCalls, fixture: LoadedFixture, output: Values, tolerance: Tolerance): Promise<boolean> {
  const grid = probeGrid(fixture.inputs, fixture.params.numHeads);
  try {
    const first = await ask(session, grid, shuffled());
    if (!first || !withinTolerance(output, merged(first[REAL], fixture), tolerance)) return false;
    const second = await ask(session, grid, shuffled());
    return second !== undefined && carryProblem(grid, first, second, tolerance) === undefined;
  } finally {
    // The child that answered last has seen the probe: whatever is asked next starts afresh.
    session.kill();
  }
}

/**
 * The assignment's --carry-forward (Assignment.carryForward): a failed multi-head case whose output
 * is what the student's own attention gives passes, saying so; nothing else is carried.
 */
export async function carryForward(calls: FreshCalls, graded: GradedCase, fixture: LoadedFixture, output: Values): Promise<string | undefined> {
  if (graded.fn !== 'multihead_self_attention') return undefined;
  return (await rightOnOwnAttention(calls, fixture, output, graded.tolerance)) ? CARRIED_REASON : undefined;
}
