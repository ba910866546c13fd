/**
 * Error carried forward, an instructor's choice (`--carry-forward`): a multi-head case whose own
 * code is right given the student's own scaledDotProductAttention earns its points. The grader
 * computes the projections, the split into heads and the merge itself (the contract's formulas,
 * in this process), asks the student's scaledDotProductAttention for the heads' outputs (in the
 * child, as every call), and compares the student's multi-head output with what that gives. No
 * reference code runs in the child. The case passes with a reason that says where its points came
 * from; without the flag nothing here runs.
 */
import type { LoadedFixture } from './fixtures';
import { withinTolerance } from '../diagnosis/probe';
import { Tensor } from '../tensor';
import type { ChildSession } from '../sandbox/session';
import type { GradedCase } from '../../tests/cases';
import { childProbe } from './diagnoseInChild';
import type { CaseVerdict } from './verdict';

export const CARRIED_REASON = 'points carried forward: your multi-head attention is right given your own scaledDotProductAttention';

/** x Wᵀ, split into [...batch, heads, seq, dHead]. */
function heads(x: Tensor, w: Tensor, numHeads: number): Tensor {
  const [seq, dModel] = x.shape.slice(-2);
  const batch = x.shape.slice(0, -2);
  return x.astype('float64').matmul(w.astype('float64').transpose(-2, -1)).reshape(...batch, seq, numHeads, dModel / numHeads).transpose(-3, -2);
}

/** What the case's multi-head output is when its attention is the student's own, or undefined when that attention gave none. */
export async function withOwnAttention(session: ChildSession, fixture: LoadedFixture): Promise<Tensor | undefined> {
  const { x, q_proj, k_proj, v_proj, o_proj, mask } = fixture.inputs;
  const numHeads = fixture.params.numHeads;
  const [seq, dModel] = x.shape.slice(-2);
  const batch = x.shape.slice(0, -2);
  const answer = await childProbe(session)('scaled_dot_product_attention', {
    params: {}, inputs: { q: heads(x, q_proj, numHeads), k: heads(x, k_proj, numHeads), v: heads(x, v_proj, numHeads), ...(mask && { mask }) },
  });
  if (answer.kind !== 'value') return undefined;
  const want = [...batch, numHeads, seq, dModel / numHeads];
  const out = answer.output;
  if (out.shape.length !== want.length || out.shape.some((n, i) => n !== want[i])) return undefined;
  return out.transpose(-3, -2).reshape(...batch, seq, dModel).matmul(o_proj.astype('float64').transpose(-2, -1));
}

/** Each failed multi-head case of `cases` whose output is what the student's own attention gives passes, saying so. */
export async function carryForward(
  session: ChildSession, cases: readonly GradedCase[], fixtures: ReadonlyMap<string, LoadedFixture>, verdicts: Map<string, CaseVerdict>,
): Promise<void> {
  for (const graded of cases) {
    const verdict = verdicts.get(graded.name);
    if (graded.fn !== 'multihead_self_attention' || verdict?.status !== 'failed' || verdict.evidence?.kind !== 'output') continue;
    const carried = await withOwnAttention(session, fixtures.get(graded.fixture)!);
    if (!carried || !withinTolerance(verdict.evidence.output, carried, graded.tolerance)) continue;
    verdicts.set(graded.name, { status: 'passed', reason: CARRIED_REASON, details: `Without carrying forward: ${verdict.reason}`, carried: true });
  }
}
