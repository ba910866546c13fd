/**
 * Correct, split over helper files as a student who factors their code writes it: matrix products
 * in linalg.ts, a row softmax in rows.ts, attention and the rest here, with `{ shape, data }`
 * results. It must get full marks. The `// audit:` lines name the part each line computes (see
 * ../tensor_methods.ts).
 */
import type { Tensor } from '../../../../lib/tensor';
import { broadcastEntry, times, timesTransposed } from './linalg';
import { softmaxRows } from './rows';

type Plain = { shape: number[]; data: Float64Array };

export function softmax(x: Tensor, dim: number): Plain {
  // audit: axis
  const axis = dim < 0 ? dim + x.ndim : dim;
  const n = x.shape[axis];
  const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const outer = x.size / (n * inner);
  // Gathered so that each slice along the axis is a row, softmaxed, then put back.
  const gathered = new Float64Array(x.size);
  for (let o = 0; o < outer; o++) for (let i = 0; i < inner; i++) for (let j = 0; j < n; j++) gathered[(o * inner + i) * n + j] = x.data[(o * n + j) * inner + i];
  softmaxRows(gathered, outer * inner, n);
  const out = new Float64Array(x.size);
  for (let o = 0; o < outer; o++) for (let i = 0; i < inner; i++) for (let j = 0; j < n; j++) out[(o * n + j) * inner + i] = gathered[(o * inner + i) * n + j];
  return { shape: [...x.shape], data: out };
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Plain {
  // audit: shape
  const lead = Q.shape.slice(0, -2);
  const [nQ, dK] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const entries = lead.reduce((a, b) => a * b, 1);
  // audit: output
  const out = new Float64Array(entries * nQ * dV);
  // audit: batch
  for (let b = 0; b < entries; b++) {
    const q = Q.data.subarray(b * nQ * dK, (b + 1) * nQ * dK);
    const k = K.data.subarray(b * nK * dK, (b + 1) * nK * dK);
    const v = V.data.subarray(b * nK * dV, (b + 1) * nK * dV);
    const scores = timesTransposed(q, k, nQ, nK, dK); // audit: scores
    // audit: scale
    for (let at = 0; at < scores.length; at++) scores[at] /= Math.sqrt(dK);
    // audit: mask
    if (mask) {
      const base = broadcastEntry(mask.shape, lead, b);
      const [mRows, mCols] = mask.ndim < 2 ? [1, mask.shape[0]] : mask.shape.slice(-2); // [n_k]: one row for every query
      for (let i = 0; i < nQ; i++) for (let j = 0; j < nK; j++) if (!mask.data[base + (mRows === 1 ? 0 : i) * mCols + (mCols === 1 ? 0 : j)]) scores[i * nK + j] = -Infinity;
    }
    const p = softmaxRows(scores, nQ, nK); // audit: max, exp, sum, normalise
    out.set(times(p, v, nQ, nK, dV), b * nQ * dV); // audit: values, output
  }
  // audit: output
  return { shape: [...lead, nQ, dV], data: out };
}

export function causalMask(seqLen: number): { shape: number[]; data: boolean[] } {
  // audit: causal
  const data: boolean[] = [];
  for (let i = 0; i < seqLen; i++) for (let j = 0; j < seqLen; j++) data.push(i >= j);
  return { shape: [seqLen, seqLen], data };
}

export function multiHeadSelfAttention(
  x: Tensor,
  w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  numHeads: number,
  mask?: Tensor,
): Plain {
  // audit: mhsa_shape
  const [seq, d] = x.shape.slice(-2);
  const rows = x.size / d;
  const dHead = d / numHeads;
  // audit: projection
  const [q, k, v] = [w.qProj, w.kProj, w.vProj].map((p) => timesTransposed(x.data, p.data, rows, d, d));
  // audit: split
  const heads = (t: Float64Array): Tensor => {
    const data = new Float64Array(t.length);
    for (let r = 0; r < rows; r++) for (let h = 0; h < numHeads; h++) data.set(t.subarray(r * d + h * dHead, r * d + (h + 1) * dHead), ((Math.floor(r / seq) * numHeads + h) * seq + (r % seq)) * dHead);
    return { shape: [rows / seq, numHeads, seq, dHead], data, ndim: 4, size: t.length } as unknown as Tensor;
  };
  const attended = scaledDotProductAttention(heads(q), heads(k), heads(v), mask); // audit: heads
  // audit: merge
  const concat = new Float64Array(rows * d);
  for (let r = 0; r < rows; r++) for (let h = 0; h < numHeads; h++) concat.set(attended.data.subarray(((Math.floor(r / seq) * numHeads + h) * seq + (r % seq)) * dHead, ((Math.floor(r / seq) * numHeads + h) * seq + (r % seq) + 1) * dHead), r * d + h * dHead);
  // audit: oproj
  return { shape: [...x.shape], data: timesTransposed(concat, w.oProj.data, rows, d, d) };
}
