/**
 * A failing attention-backward case as its diagnosis reads it (backward.ts), and the variants of
 * it whose gradients are known without computing any: each changes the inputs so that the exact
 * gradients are the stored ones moved, padded or sliced (zero features added with Q doubled keep
 * every score; a query whose keys are all masked, or a key no query may see, passes no gradient;
 * a batch entry alone has its own gradients). A variant's answer is compared with those, within
 * the case's tolerance or its float32 bound carried along.
 */
import type { Tolerance, Values } from '../../lib/compare';
import type { LoadedFixture } from '../../lib/model/fixtures';
import type { ProbeContext } from '../../lib/diagnosis/probe';
import { Tensor } from '../../lib/tensor';

export type Part = 'dQ' | 'dK' | 'dV';
export const PARTS: readonly Part[] = ['dQ', 'dK', 'dV'];

/** Gradients with the bound each element may be off by (the case's float32 bound, moved with it). */
export type Known = Record<Part, { value: Tensor; bound: Float64Array }>;

export interface Inputs {
  q: Tensor;
  k: Tensor;
  v: Tensor;
  d_out: Tensor;
  mask?: Tensor;
}

export interface BackwardCase {
  inputs: Inputs;
  known: Known;
  batch: number[];
  nQ: number;
  nK: number;
  d: number;
  dV: number;
}

export type Answer = { kind: 'parts'; parts: Record<Part, Tensor> } | { kind: 'threw'; name: string; message: string } | { kind: 'none' };

const FN = 'scaled_dot_product_attention_backward';

export function caseOf(fixture: LoadedFixture): BackwardCase {
  const { q, k, v, d_out, mask } = fixture.inputs;
  const known = Object.fromEntries(PARTS.map((p) => [p, { value: fixture.parts[p], bound: Float64Array.from(fixture.bound(p)?.data ?? new Float64Array(fixture.parts[p].size)) }])) as Known;
  return { inputs: { q, k, v, d_out, ...(mask && { mask }) }, known, batch: q.shape.slice(0, -2), nQ: q.shape[q.ndim - 2], nK: k.shape[k.ndim - 2], d: q.shape[q.ndim - 1], dV: v.shape[v.ndim - 1] };
}

/** The student's function on these inputs: its three gradients, what it threw, or nothing (a hang, a crash). */
export async function callBackward(context: ProbeContext, inputs: Inputs): Promise<Answer> {
  const answer = await context.probe(FN, { params: {}, inputs: { ...inputs } });
  if (answer.kind === 'threw') return { kind: 'threw', name: answer.name, message: answer.message };
  if (answer.kind === 'none' || !answer.parts) return { kind: 'none' };
  return { kind: 'parts', parts: answer.parts as Record<Part, Tensor> };
}

/** Largest magnitude of a tensor's values. */
const peak = ({ data }: Values) => {
  let max = 0;
  for (let i = 0; i < data.length; i++) max = Math.max(max, Math.abs(data[i]));
  return max;
};

/**
 * Each value within the tolerance, its bound, or a millionth of the largest expected value (what
 * float32 sums of another length or order may differ by on a variant the bound was not made for).
 */
export function near(actual: Values | undefined, expected: Values, tol: Tolerance, bound?: ArrayLike<number>): boolean {
  if (!actual || actual.shape.join() !== expected.shape.join()) return false;
  const slack = 1e-6 * peak(expected);
  for (let i = 0; i < expected.data.length; i++) {
    const err = Math.abs(actual.data[i] - expected.data[i]);
    if (!(err <= tol.atol + tol.rtol * Math.abs(expected.data[i]) + slack || err <= (bound?.[i] ?? 0))) return false;
  }
  return true;
}

/** Which parts of an answer are not the known gradients. */
export const wrongParts = (parts: Record<Part, Tensor>, known: Known, tol: Tolerance): Part[] =>
  PARTS.filter((p) => !near(parts[p], known[p].value, tol, known[p].bound));

/** A tensor of the same dtype as `like` (float64 for a boolean mask's values). */
const tensorLike = (like: Tensor, data: ArrayLike<number>, shape: number[]) =>
  new Tensor(like.dtype === 'float32' ? Float32Array.from(data) : like.dtype === 'bool' ? Uint8Array.from(data) : Float64Array.from(data), shape);

/**
 * `t` [..., rows, cols] grown to [..., rows + addRows, cols + addCols], each matrix's values times
 * `scale` in its top-left corner and `fill` elsewhere.
 */
function grown(t: Tensor, addRows: number, addCols: number, scale = 1, fill = 0): Tensor {
  const [rows, cols] = t.shape.slice(-2);
  const [r2, c2] = [rows + addRows, cols + addCols];
  const count = t.size / (rows * cols || 1);
  const data = new Float64Array(count * r2 * c2).fill(fill);
  for (let m = 0; m < count; m++) for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) data[(m * r2 + r) * c2 + c] = scale * t.data[(m * rows + r) * cols + c];
  return tensorLike(t, data, [...t.shape.slice(0, -2), r2, c2]);
}

/** Values and bound moved together: each grown as `grown` grows a tensor. */
function grownKnown(known: Known[Part], addRows: number, addCols: number, scale = 1): Known[Part] {
  const bound = grown(new Tensor(known.bound, known.value.shape), addRows, addCols, Math.abs(scale));
  return { value: grown(known.value.astype('float64'), addRows, addCols, scale), bound: Float64Array.from(bound.data) };
}

/** The mask broadcast to [...batch, n_q, n_k] (all ones without one), as 0/1. */
export function fullMask(c: BackwardCase): Tensor {
  const shape = [...c.batch, c.nQ, c.nK];
  const ones = Tensor.ones(shape, 'bool');
  return c.inputs.mask ? ones.logicalAnd(c.inputs.mask.ne(0)) : ones;
}

/**
 * d_k four times larger, the same scores: Q doubled and padded with zeros, K padded with zeros.
 * Then dQ is [dQ / 2, 0], dK [dK, 0] and dV unchanged; a dQ or dK off by √d_k is off by 2√d_k here.
 */
export function wider(c: BackwardCase): { inputs: Inputs; known: Known } {
  const pad = 3 * c.d;
  return {
    inputs: { ...c.inputs, q: grown(c.inputs.q, 0, pad, 2), k: grown(c.inputs.k, 0, pad) },
    known: { dQ: grownKnown(c.known.dQ, 0, pad, 0.5), dK: grownKnown(c.known.dK, 0, pad), dV: c.known.dV },
  };
}

/** `extra` queries added whose keys are all masked (zero Q and dOut rows): they pass no gradient, and dQ gets zero rows. */
export function moreQueries(c: BackwardCase, extra: number): { inputs: Inputs; known: Known } {
  return {
    inputs: { ...c.inputs, q: grown(c.inputs.q, extra, 0), d_out: grown(c.inputs.d_out, extra, 0), mask: grown(fullMask(c), extra, 0) },
    known: { dQ: grownKnown(c.known.dQ, extra, 0), dK: c.known.dK, dV: c.known.dV },
  };
}

/** `extra` keys added that no query may see (zero K and V rows): dK and dV get zero rows, and nothing else moves. */
export function moreKeys(c: BackwardCase, extra: number): { inputs: Inputs; known: Known } {
  return {
    inputs: { ...c.inputs, k: grown(c.inputs.k, extra, 0), v: grown(c.inputs.v, extra, 0), mask: grown(fullMask(c), 0, extra) },
    known: { dQ: c.known.dQ, dK: grownKnown(c.known.dK, extra, 0), dV: grownKnown(c.known.dV, extra, 0) },
  };
}

/** The same vector (1, 1, …) added to every row of V: every score's dP moves by the same number per query, which no gradient may see. */
export const valuesShifted = (c: BackwardCase): Inputs => ({ ...c.inputs, v: c.inputs.v.astype('float64').add(1) });

/** Batch entry `b` alone, its batch dims kept at size 1, its mask given in full; its gradients are the case's entry `b`. */
export function entryAlone(c: BackwardCase, b: number): { inputs: Inputs; known: Known } {
  const ones = c.batch.map(() => 1);
  const slice = (t: Tensor) => {
    const per = t.size / (c.batch.reduce((a, n) => a * n, 1) || 1);
    return tensorLike(t, t.data.subarray(b * per, (b + 1) * per), [...ones, ...t.shape.slice(-2)]);
  };
  const sliceKnown = (known: Known[Part]) => {
    const per = known.value.size / (c.batch.reduce((a, n) => a * n, 1) || 1);
    return { value: slice(known.value), bound: known.bound.slice(b * per, (b + 1) * per) };
  };
  return {
    inputs: { q: slice(c.inputs.q), k: slice(c.inputs.k), v: slice(c.inputs.v), d_out: slice(c.inputs.d_out), ...(c.inputs.mask && { mask: slice(fullMask(c)) }) },
    known: { dQ: sliceKnown(c.known.dQ), dK: sliceKnown(c.known.dK), dV: sliceKnown(c.known.dV) },
  };
}
