/**
 * fast-check arbitraries over the whole domain of each graded function (lib/model/domain.ts):
 * a plan of plain numbers (shapes, a dim, which mask dims broadcast, a magnitude, a dtype, a seed)
 * that shrinks to the smallest failing call, and the call it builds. Written apart from the
 * hidden cases' draws (reference/fixtures/hiddenSpecs.ts) on purpose: a second way to reach every
 * class, so a class the draws reach only by luck still gets swept.
 */
import fc from 'fast-check';
import type { CaseData } from '../../reference/fixtures/caseBuild';
import { gaussian } from '../../lib/random';
import { Tensor } from '../../lib/tensor';
import type { GradedFunction } from '../../tests/cases';
import * as oracle from '../oracle';

/** Magnitudes float32 code written any reasonable way meets the tolerance at: every value and score below 2048. */
type Magnitude = 'normal' | 'small' | 'large' | 'apart';

export interface SoftmaxPlan { shape: number[]; dim: number; dtype: 'float32' | 'float64'; magnitude: Magnitude; shift: number; seed: number }
export interface AttentionPlan {
  batch: number[]; nQ: number; nK: number; dK: number; dV: number; dtype: 'float32' | 'float64'; magnitude: Magnitude; seed: number;
  /** undefined: no mask. `keep` of the batch dims (the last ones), each kept or 1; the query and key dims kept or 1; or 1-D. */
  mask?: { keep: number; ones: boolean[]; queryOne: boolean; keyOne: boolean; oneD: boolean };
}
export interface MultiHeadPlan { batch: number[]; seq: number; numHeads: number; dHead: number; mask: 'none' | 'causal' | 'other'; dtype: 'float32' | 'float64'; seed: number }
export interface CausalPlan { seqLen: number }
export type Plan = SoftmaxPlan | AttentionPlan | MultiHeadPlan | CausalPlan;

const dims = (min: number, max: number, lo = 1, hi = 3) => fc.array(fc.integer({ min: lo, max: hi }), { minLength: min, maxLength: max });
const seed = fc.nat({ max: 2 ** 31 - 1 });
const dtype = fc.constantFrom('float32' as const, 'float64' as const);

const softmaxPlan: fc.Arbitrary<SoftmaxPlan> = dims(1, 4, 1, 5).chain((shape) =>
  fc.record({
    shape: fc.constant(shape),
    dim: fc.integer({ min: -shape.length, max: shape.length - 1 }),
    dtype,
    magnitude: fc.constantFrom<Magnitude>('normal', 'small', 'large', 'apart'),
    shift: fc.integer({ min: 500, max: 1000 }).chain((s) => fc.constantFrom(s, -s)),
    seed,
  }),
);

const attentionPlan: fc.Arbitrary<AttentionPlan> = dims(0, 3).chain((batch) =>
  fc.record({
    batch: fc.constant(batch),
    nQ: fc.integer({ min: 1, max: 6 }),
    nK: fc.integer({ min: 1, max: 6 }),
    dK: fc.integer({ min: 1, max: 8 }),
    dV: fc.integer({ min: 1, max: 8 }),
    dtype,
    magnitude: fc.constantFrom<Magnitude>('normal', 'small', 'large', 'apart'),
    seed,
    mask: fc.option(fc.record({
      keep: fc.integer({ min: 0, max: batch.length }),
      ones: fc.array(fc.boolean(), { minLength: batch.length, maxLength: batch.length }),
      queryOne: fc.boolean(),
      keyOne: fc.boolean(),
      oneD: fc.boolean(),
    }), { nil: undefined }),
  }),
);

const multiHeadPlan: fc.Arbitrary<MultiHeadPlan> = fc.record({
  batch: dims(0, 2),
  seq: fc.integer({ min: 1, max: 6 }),
  numHeads: fc.integer({ min: 1, max: 4 }),
  dHead: fc.integer({ min: 1, max: 4 }),
  mask: fc.constantFrom('none' as const, 'causal' as const, 'other' as const),
  dtype,
  seed,
});

/** The functions whose domain domain.ts states class by class: the core part's (tests/parts.ts). */
export type SweptFunction = Extract<GradedFunction, 'softmax' | 'scaled_dot_product_attention' | 'causal_mask' | 'multihead_self_attention'>;

export const PLANS: Record<SweptFunction, fc.Arbitrary<Plan>> = {
  softmax: softmaxPlan,
  scaled_dot_product_attention: attentionPlan,
  causal_mask: fc.record({ seqLen: fc.integer({ min: 1, max: 40 }) }),
  multihead_self_attention: multiHeadPlan,
};

const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

function floats(shape: number[], at: number, kind: 'float32' | 'float64', value: (v: number, i: number) => number = (v) => v): Tensor {
  const values = gaussian(size(shape), at);
  return new Tensor(kind === 'float64' ? Float64Array.from(values, value) : Float32Array.from(values, value), shape);
}

function softmaxData(p: SoftmaxPlan, at: number): CaseData {
  const axis = p.dim < 0 ? p.dim + p.shape.length : p.dim;
  const inner = size(p.shape.slice(axis + 1));
  const n = p.shape[axis];
  // The slice an element belongs to, for 'apart': its maximum thousands from its neighbours'.
  const slice = (i: number) => Math.floor(i / (n * inner)) * inner + (i % inner);
  const value = (v: number, i: number) =>
    p.magnitude === 'small' ? v * 1e-3 : p.magnitude === 'large' ? v + p.shift : p.magnitude === 'apart' ? v + [-900, 0, 1500][slice(i) % 3] : v;
  // float64 inputs are of ordinary size: float32 code rounds them, and at 1000 that rounding alone is 6e-5.
  const kind = p.magnitude === 'normal' || p.magnitude === 'small' ? p.dtype : 'float32';
  return { params: { dim: p.dim }, inputs: { x: floats(p.shape, at, kind, value) } };
}

/** Integer rows whose first feature is 64·factor: scores near 1024·factor, exact in float32 (as the large_scores recipe). */
function largeScores(shape: number[], at: number, factors: number[]): Tensor {
  const d = shape[shape.length - 1];
  return new Tensor(Float32Array.from(gaussian(size(shape), at), (v, i) => (i % d === 0 ? 64 * factors[Math.floor(i / d) % factors.length] : Math.round(2 * v))), shape);
}

function maskOf(p: AttentionPlan, at: number): Tensor | undefined {
  const m = p.mask;
  if (!m) return undefined;
  const kept = p.batch.slice(p.batch.length - m.keep).map((d, i) => (m.ones[i] ? 1 : d));
  const shape = m.oneD ? [m.keyOne ? 1 : p.nK] : [...kept, m.queryOne ? 1 : p.nQ, m.keyOne ? 1 : p.nK];
  return new Tensor(Uint8Array.from(gaussian(size(shape), at), (v) => (v > -0.3 ? 1 : 0)), shape);
}

function attentionData(p: AttentionPlan, at: number): CaseData {
  const big = p.magnitude === 'large' || p.magnitude === 'apart';
  // Large scores need d_k = 16 (64²/√16 = 1024) and float32 integers, exact whatever the code's precision.
  const dK = big ? 16 : p.dK;
  const kind = big ? 'float32' : p.dtype;
  const scale = p.magnitude === 'small' ? 1e-3 : 1;
  const q = big ? largeScores([...p.batch, p.nQ, dK], at, p.magnitude === 'apart' ? [1, -1, 1.5, 0] : [1]) : floats([...p.batch, p.nQ, dK], at, kind, (v) => v * scale);
  const k = big ? largeScores([...p.batch, p.nK, dK], at + 1, [1]) : floats([...p.batch, p.nK, dK], at + 1, kind, (v) => v * scale);
  const mask = maskOf(p, at + 3);
  return { params: {}, inputs: { q, k, v: floats([...p.batch, p.nK, p.dV], at + 2, kind), ...(mask && { mask }) } };
}

function multiHeadData(p: MultiHeadPlan, at: number): CaseData {
  const d = p.numHeads * p.dHead;
  const w = (i: number) => floats([d, d], at + i, p.dtype, (v) => v / Math.sqrt(d));
  const causal = oracle.causalMask(p.seq);
  const other = Uint8Array.from(gaussian(p.seq * p.seq, at + 5), (v, i) => (v > 0 || i % (p.seq + 1) === 0 ? 1 : 0));
  const mask = p.mask === 'causal' ? new Tensor(Uint8Array.from(causal.data), [p.seq, p.seq]) : p.mask === 'other' ? new Tensor(other, [p.seq, p.seq]) : undefined;
  return {
    params: { numHeads: p.numHeads },
    inputs: { x: floats([...p.batch, p.seq, d], at, p.dtype), q_proj: w(1), k_proj: w(2), v_proj: w(3), o_proj: w(4), ...(mask && { mask }) },
  };
}

/** The call a plan describes; `again` > 0 gives the same shapes with new values (a repeated call). */
export function build(fn: SweptFunction, plan: Plan, again = 0): CaseData {
  switch (fn) {
    case 'softmax': return softmaxData(plan as SoftmaxPlan, (plan as SoftmaxPlan).seed + 101 * again);
    case 'scaled_dot_product_attention': return attentionData(plan as AttentionPlan, (plan as AttentionPlan).seed + 101 * again);
    case 'multihead_self_attention': return multiHeadData(plan as MultiHeadPlan, (plan as MultiHeadPlan).seed + 101 * again);
    case 'causal_mask': return { params: { seqLen: (plan as CausalPlan).seqLen + again }, inputs: {} };
  }
}
