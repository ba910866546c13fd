/**
 * An attention case as the probes read it ([...batch, queries, keys], d_k, d_v) and the inputs they
 * derive from it. Every derived input keeps the shape and dtype of the one it replaces (a float32
 * solution given float64 rounds differently, and a mask given in another broadcast shape meets
 * other code), so that code which handles the case's inputs handles the probe's the same way.
 */
import type { Values } from '../../lib/compare';
import { Tensor } from '../../lib/tensor';
import { probeOutput, type ProbeContext } from '../../lib/diagnosis/probe';
import type { Grid } from './readProbabilities';

export interface AttentionCase {
  q: Tensor;
  k: Tensor;
  v: Tensor;
  mask?: Tensor;
  grid: Grid;
  dK: number;
  dV: number;
  batch: number[];
}

export type AttentionInputs = { q: Tensor; k: Tensor; v: Tensor; mask?: Tensor };

export function caseOf(inputs: Record<string, Tensor>): AttentionCase {
  const { q, k, v, mask } = inputs;
  const batch = q.shape.slice(0, -2);
  const [queries, dK] = q.shape.slice(-2);
  const grid = { batches: batch.reduce((a, b) => a * b, 1), queries, keys: k.shape[k.ndim - 2] };
  return { q, k, v, mask, grid, dK, dV: v.shape[v.ndim - 1], batch };
}

/** The case's own inputs, the mask only when it has one. */
export const inputsOf = (c: AttentionCase): AttentionInputs => ({ q: c.q, k: c.k, v: c.v, ...(c.mask && { mask: c.mask }) });

export const callAttention = (context: ProbeContext, inputs: AttentionInputs) =>
  probeOutput(context, 'scaled_dot_product_attention', { params: {}, inputs: { ...inputs } });

export function broadcastMask(c: AttentionCase): Tensor {
  return Tensor.ones([...c.batch, c.grid.queries, c.grid.keys], 'bool').logicalAnd(c.mask!);
}

/** The mask as a [batches, queries, keys] array of 0/1, whatever its broadcast shape. */
export function allowedGrid(c: AttentionCase): Uint8Array {
  if (!c.mask) return new Uint8Array(c.grid.batches * c.grid.queries * c.grid.keys).fill(1);
  return Uint8Array.from(broadcastMask(c).data);
}

/** Entry b of a [...batch, rows, cols] tensor, flat. */
export function entry(t: Values, b: number, per: number): ArrayLike<number> {
  // A view of a typed array (a tensor's data always is): a generic slice reads it element by element.
  const { data } = t;
  return ArrayBuffer.isView(data) ? (data as Float64Array).subarray(b * per, (b + 1) * per) : Array.prototype.slice.call(data, b * per, (b + 1) * per);
}

/** A new array of the same kind as `data` (Float32Array stays Float32Array, a mask stays Uint8Array). */
function like(data: Tensor['data'], n: number): Tensor['data'] {
  return data instanceof Float32Array ? new Float32Array(n) : data instanceof Uint8Array ? new Uint8Array(n) : new Float64Array(n);
}

/**
 * `t` with the order reversed along each of `axes` (negative from the end) whose size is over 1:
 * a broadcast dim of size 1 stays as it is, so the tensor keeps its shape and what it means.
 */
export function reversed(t: Tensor, axes: readonly number[]): Tensor {
  const dims = axes.map((a) => (a < 0 ? a + t.ndim : a)).filter((a) => a >= 0 && a < t.ndim && t.shape[a] > 1);
  const out = like(t.data, t.size);
  const strides = t.shape.map((_, d) => t.shape.slice(d + 1).reduce((a, b) => a * b, 1));
  for (let i = 0; i < t.size; i++) {
    let j = i;
    for (const d of dims) {
      const at = Math.floor(i / strides[d]) % t.shape[d];
      j += (t.shape[d] - 1 - 2 * at) * strides[d];
    }
    out[j] = t.data[i];
  }
  return new Tensor(out, t.shape);
}

/** The batch dims of a [...batch, rows, cols] tensor (a mask's own, which may be fewer). */
export const batchAxes = (t: Tensor) => Array.from({ length: Math.max(0, t.ndim - 2) }, (_, d) => d);

/** K's shape, holding Kᵀ's numbers in row-major order: what code that reads K as [d_k, n_k] needs to see K. */
export function laidOutTransposed(t: Tensor): Tensor {
  const tt = t.transpose(-2, -1);
  const data = like(t.data, t.size);
  data.set(tt.data);
  return new Tensor(data, t.shape);
}

/**
 * Block `block` of the identity, as a value tensor of V's shape and dtype: V[j][c] = 1 where
 * j = block·d_v + c. Attention returns columns block·d_v … of its probabilities for it, so
 * ⌈n_k / d_v⌉ blocks give them all with d_v as the case has it (code that reads d_v, e.g. a scale
 * by √d_v, sees the case's).
 */
export function identityBlock(c: AttentionCase, block: number): Tensor {
  const { batches, keys } = c.grid;
  const data = like(c.v.data, c.v.size);
  for (let b = 0; b < batches; b++) {
    for (let col = 0; col < c.dV; col++) {
      const j = block * c.dV + col;
      if (j < keys) data[(b * keys + j) * c.dV + col] = 1;
    }
  }
  return new Tensor(data, c.v.shape);
}

/** "query 3" or "query 3 of batch entry 1": where a row of [...batch, queries, ·] is. */
export function whereRow(c: AttentionCase, row: number): string {
  const { batches, queries } = c.grid;
  return batches > 1 ? `query ${row % queries} of batch entry ${Math.floor(row / queries)}` : `query ${row}`;
}
