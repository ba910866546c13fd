/**
 * Scaled dot-product and multi-head attention in plain float64 loops over `data`, the way a
 * student who ignores the tensor methods writes them, with the places where such code goes wrong
 * as knobs. The loop variants of the catalogue (`*_loop.ts`) each turn one knob; with none turned
 * they are correct.
 */
import { Tensor } from '../../../lib/tensor';

export interface Knobs {
  /** What the scores are divided by (√d_k). */
  divisor?: (dK: number, dV: number) => number;
  /** The offset in K.data of key j, feature c of batch entry b (row-major [..., n_k, d_k]). */
  keyOffset?: (b: number, j: number, c: number, nK: number, dK: number) => number;
  /** The offset in Q.data of query i, feature c of batch entry b. */
  queryOffset?: (b: number, i: number, c: number, nQ: number, dK: number) => number;
  /** The offset in V.data of key j, feature c of batch entry b. */
  valueOffset?: (b: number, j: number, c: number, nK: number, dV: number) => number;
  /** How many batch entries are computed (all). */
  entries?: (count: number) => number;
  /** Whether query i may attend key j in batch entry b (mask read with broadcasting). */
  allowed?: (mask: Tensor, batch: readonly number[], b: number, i: number, j: number) => boolean;
  /** The score a masked key gets (−∞). */
  fill?: number;
  /** Subtract the row max before exp (yes). */
  stable?: boolean;
  /** A row with no allowed key outputs zeros (yes); otherwise 0/0. */
  guardEmptyRows?: boolean;
}

/** Whether the mask allows [b, i, j], broadcasting a lower-rank mask from the right. */
export function maskAllows(mask: Tensor, batch: readonly number[], b: number, i: number, j: number): boolean {
  const index = [...batch.map(() => 0), i, j];
  for (let d = batch.length - 1, rest = b; d >= 0; d--) {
    index[d] = rest % batch[d];
    rest = Math.floor(rest / batch[d]);
  }
  const own = index.slice(index.length - mask.ndim);
  let offset = 0;
  for (let d = 0; d < mask.ndim; d++) offset = offset * mask.shape[d] + (mask.shape[d] === 1 ? 0 : own[d]);
  return mask.data[offset] !== 0;
}

export function loopAttention(Q: Tensor, K: Tensor, V: Tensor, mask: Tensor | undefined, knobs: Knobs = {}): { shape: number[]; data: Float64Array } {
  const { divisor = (dK: number) => Math.sqrt(dK), keyOffset = (b: number, j: number, c: number, nK: number, dK: number) => (b * nK + j) * dK + c } = knobs;
  const { entries = (n: number) => n, allowed = maskAllows, fill = -Infinity, stable = true, guardEmptyRows = true } = knobs;
  const { queryOffset = (b: number, i: number, c: number, nQ: number, dK: number) => (b * nQ + i) * dK + c } = knobs;
  const { valueOffset = (b: number, j: number, c: number, nK: number, dV: number) => (b * nK + j) * dV + c } = knobs;
  const batch = Q.shape.slice(0, -2);
  const [nQ, dK] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const count = batch.reduce((a, b) => a * b, 1);
  const out = new Float64Array(count * nQ * dV);
  const scale = divisor(dK, dV);
  for (let b = 0; b < entries(count); b++) {
    for (let i = 0; i < nQ; i++) {
      const scores = new Float64Array(nK);
      let any = false;
      for (let j = 0; j < nK; j++) {
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += Q.data[queryOffset(b, i, c, nQ, dK)] * K.data[keyOffset(b, j, c, nK, dK)];
        const ok = !mask || allowed(mask, batch, b, i, j);
        any ||= ok;
        scores[j] = ok ? dot / scale : fill;
      }
      if (!any && guardEmptyRows) continue;
      const max = stable ? Math.max(...scores) : 0;
      const exps = scores.map((s) => Math.exp(s - max));
      const total = exps.reduce((a, e) => a + e, 0);
      for (let j = 0; j < nK; j++) {
        const p = exps[j] / total;
        for (let c = 0; c < dV; c++) out[(b * nQ + i) * dV + c] += p * V.data[valueOffset(b, j, c, nK, dV)];
      }
    }
  }
  return { shape: [...batch, nQ, dV], data: out };
}

export interface HeadKnobs {
  /** The offset in a [dOut, dIn] weight of output o, input c (row-major: o·dIn + c, for x Wᵀ). */
  weightOffset?: (o: number, c: number, d: number) => number;
  /** The feature of the projection that is feature i of head h (contiguous: h·dHead + i). */
  feature?: (h: number, i: number, dHead: number, numHeads: number) => number;
  /** K and V of x, computed by `compute` (every call). */
  keysAndValues?: (x: Tensor, compute: () => [Float64Array, Float64Array]) => [Float64Array, Float64Array];
  /** The feature of the concatenation that head h's output feature i goes to (where the split took it from). */
  mergeFeature?: (h: number, i: number, dHead: number, numHeads: number) => number;
  /** How many heads are attended (all). */
  headsAttended?: (numHeads: number) => number;
  /** The mask head h attends with (the one given). */
  maskOf?: (h: number, mask: Tensor | undefined) => Tensor | undefined;
  /** The offset in oProj of output o, input c (weightOffset's). */
  outputOffset?: (o: number, c: number, d: number) => number;
  /** Returns the concatenated heads without oProj (no). */
  noOutputProjection?: boolean;
}

/** x [...batch, seq, d] Wᵀ for a [d, d] weight. */
function project(x: Tensor, w: Tensor, weightOffset: NonNullable<HeadKnobs['weightOffset']>): Float64Array {
  const d = x.shape[x.ndim - 1];
  const rows = x.size / d;
  const out = new Float64Array(x.size);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < d; o++) {
      let acc = 0;
      for (let c = 0; c < d; c++) acc += x.data[r * d + c] * w.data[weightOffset(o, c, d)];
      out[r * d + o] = acc;
    }
  }
  return out;
}

export function loopMultiHead(
  x: Tensor, w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor }, numHeads: number, mask: Tensor | undefined, knobs: HeadKnobs = {},
): { shape: number[]; data: Float64Array } {
  const { weightOffset = (o: number, c: number, d: number) => o * d + c, feature = (h: number, i: number, dHead: number) => h * dHead + i } = knobs;
  const { keysAndValues = (_x: Tensor, compute: () => [Float64Array, Float64Array]) => compute() } = knobs;
  const { mergeFeature = feature, headsAttended = (n: number) => n, maskOf = (_h: number, m: Tensor | undefined) => m, outputOffset = weightOffset } = knobs;
  const [seq, d] = x.shape.slice(-2);
  const dHead = d / numHeads;
  const entries = x.size / (seq * d);
  const q = project(x, w.qProj, weightOffset);
  const [k, v] = keysAndValues(x, () => [project(x, w.kProj, weightOffset), project(x, w.vProj, weightOffset)]);
  const concat = new Float64Array(x.size);
  for (let b = 0; b < entries; b++) {
    for (let h = 0; h < headsAttended(numHeads); h++) {
      const head = (src: Float64Array) => {
        const data = new Float64Array(seq * dHead);
        for (let s = 0; s < seq; s++) for (let i = 0; i < dHead; i++) data[s * dHead + i] = src[(b * seq + s) * d + feature(h, i, dHead, numHeads)];
        return new Tensor(data, [seq, dHead]);
      };
      const out = loopAttention(head(q), head(k), head(v), maskOf(h, mask));
      for (let s = 0; s < seq; s++) for (let i = 0; i < dHead; i++) concat[(b * seq + s) * d + mergeFeature(h, i, dHead, numHeads)] = out.data[s * dHead + i];
    }
  }
  if (knobs.noOutputProjection) return { shape: [...x.shape], data: concat };
  return { shape: [...x.shape], data: project(new Tensor(concat, x.shape), w.oProj, outputOffset) };
}
