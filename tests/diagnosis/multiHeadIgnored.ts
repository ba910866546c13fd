/**
 * What a failing multi-head output does not change with: numHeads, the mask, oProj, a projection
 * weight. That the output stays the same is a measurement; that the code never uses that input is
 * a cause, and is said only when the student's own attention, handed heads split and merged as
 * they should be, gives their output with that one input left out (one head, no mask, no oProj).
 * An output that stays the same when several inputs change depends on little at all: the reading
 * is not about any one of them, and nothing is named.
 */
import type { GradedCase } from '../../lib/assignment/cases';
import type { Values } from '../../lib/compare';
import { Tensor } from '../../lib/tensor';
import { probeOutput, withinTolerance, type Finding, type ProbeContext } from '../../lib/diagnosis/probe';

export interface MultiHeadInputs {
  x: Tensor;
  q_proj: Tensor;
  k_proj: Tensor;
  v_proj: Tensor;
  o_proj: Tensor;
  mask?: Tensor;
}

const transposed = (w: Tensor) => w.transpose(0, 1);

/**
 * Multi-head attention put together here around the student's own scaledDotProductAttention (which
 * passes its tests by now): contiguous heads, concatenated in order, oProj applied unless left out.
 */
export async function aroundTheirAttention(inputs: MultiHeadInputs, numHeads: number, context: ProbeContext, leftOut: { mask?: boolean; oProj?: boolean } = {}): Promise<Tensor | undefined> {
  const { x } = inputs;
  const [seq, dModel] = x.shape.slice(-2);
  const lead = x.shape.slice(0, -2);
  const dHead = dModel / numHeads;
  const split = (w: Tensor) => x.astype('float64').matmul(transposed(w)).reshape(...lead, seq, numHeads, dHead).transpose(-3, -2);
  const mask = leftOut.mask ? undefined : inputs.mask;
  const heads = await probeOutput(context, 'scaled_dot_product_attention', {
    params: {}, inputs: { q: split(inputs.q_proj), k: split(inputs.k_proj), v: split(inputs.v_proj), ...(mask && { mask }) },
  });
  if (!heads || heads.shape.join() !== [...lead, numHeads, seq, dHead].join()) return undefined;
  const merged = heads.transpose(-3, -2).reshape(...lead, seq, dModel);
  return leftOut.oProj ? merged : merged.matmul(transposed(inputs.o_proj));
}

type Call = (inputs: MultiHeadInputs, numHeads: number) => Promise<Tensor | undefined>;

export async function ignoredInputs(
  inputs: MultiHeadInputs, numHeads: number, out: Values, graded: GradedCase, context: ProbeContext, call: Call,
): Promise<Finding[]> {
  const same = (probe: Values | undefined) => withinTolerance(probe, out, graded.tolerance);
  const { mask, ...unmasked } = inputs;
  const measured: { id: string; evidence: string; cause: () => Promise<Values | undefined> }[] = [];
  if (numHeads > 1 && same(await call(inputs, 1))) {
    measured.push({ id: 'heads_not_split', evidence: 'With numHeads = 1 your output is the same', cause: () => aroundTheirAttention(inputs, 1, context) });
  }
  if (mask && same(await call(unmasked, numHeads))) {
    measured.push({ id: 'mhsa_mask_ignored', evidence: 'Without the mask your output is the same', cause: () => aroundTheirAttention(inputs, numHeads, context, { mask: true }) });
  }
  if (same(await call({ ...inputs, o_proj: inputs.o_proj.mul(2) }, numHeads))) {
    measured.push({ id: 'output_projection_missing', evidence: 'With oProj doubled your output is the same', cause: () => aroundTheirAttention(inputs, numHeads, context, { oProj: true }) });
  }
  const unused: string[] = [];
  for (const [weight, name] of [['q_proj', 'qProj'], ['k_proj', 'kProj'], ['v_proj', 'vProj']] as const) {
    // Doubling qProj or kProj doubles every score, doubling vProj the output: used, either changes it.
    if (same(await call({ ...inputs, [weight]: inputs[weight].mul(2) }, numHeads))) unused.push(name);
  }
  if (unused.length) measured.push({ id: 'projection_unused', evidence: `With ${unused.join(' or ')} doubled your output is the same`, cause: async () => out });
  if (measured.length !== 1) return [];
  const [only] = measured;
  if (!same(await only.cause())) return [];
  const confirmed = only.id === 'projection_unused' ? '' : ', and your attention given heads split and merged as they should be, with that left out, gives your output';
  return [{ id: only.id, evidence: `${only.evidence}${confirmed}.` }];
}
