/**
 * Correct, in a functional style over plain number[][] (map, reduce, Array.from, no loops with
 * indices), building every intermediate anew; float64, returning `{ shape, data: number[] }`. It
 * must get full marks. The `// audit:` lines name the part each line computes (see
 * tensor_methods.ts).
 */
import type { Tensor } from '../../../lib/tensor';

type Plain = { shape: number[]; data: number[] };
type Matrix = number[][];

// audit: shape, axis, mask
const product = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

/** The matrices [rows, cols] of a [...lead, rows, cols] tensor, in order. */
// audit: batch
const matrices = (t: Tensor): Matrix[] => {
  const [rows, cols] = t.shape.slice(-2);
  return Array.from({ length: t.size / (rows * cols) }, (_, b) =>
    Array.from({ length: rows }, (__, r) => Array.from(t.data.subarray((b * rows + r) * cols, (b * rows + r + 1) * cols))));
};

/** A softmax over a list of numbers; −∞ everywhere gives zeros. */
const softmaxList = (values: number[]): number[] => {
  // audit: max
  const max = values.reduce((m, v) => Math.max(m, v), -Infinity);
  // audit: empty
  if (max === -Infinity) return values.map(() => 0);
  // audit: exp
  const exps = values.map((v) => Math.exp(v - max));
  // audit: sum
  const total = exps.reduce((a, e) => a + e, 0);
  // audit: normalise
  return exps.map((e) => e / total);
};

export function softmax(x: Tensor, dim: number): Plain {
  // audit: axis
  const axis = (dim + x.ndim) % x.ndim;
  const n = x.shape[axis];
  const inner = product(x.shape.slice(axis + 1));
  const slices = Array.from({ length: x.size / n }, (_, s) => {
    const [o, i] = [Math.floor(s / inner), s % inner];
    return Array.from({ length: n }, (__, j) => (o * n + j) * inner + i);
  });
  const data = new Array<number>(x.size).fill(0);
  slices.forEach((at) => softmaxList(at.map((i) => x.data[i])).forEach((p, j) => (data[at[j]] = p)));
  return { shape: [...x.shape], data };
}

/** Whether the mask allows query i, key j of entry b, broadcast from the right. */
// audit: mask
const allowedBy = (mask: Tensor | undefined, lead: readonly number[]) => (b: number, i: number, j: number): boolean => {
  if (!mask) return true;
  const index = [...lead.map((n, d) => Math.floor(b / product(lead.slice(d + 1))) % n), i, j].slice(-mask.ndim);
  return mask.data[index.reduce((offset, at, d) => offset * mask.shape[d] + (mask.shape[d] === 1 ? 0 : at), 0)] !== 0;
};

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Plain {
  // audit: shape
  const lead = Q.shape.slice(0, -2);
  const dK = Q.shape[Q.ndim - 1]; // audit: shape, scale
  const allowed = allowedBy(mask, lead); // audit: mask
  // audit: batch
  const [qs, ks, vs] = [matrices(Q), matrices(K), matrices(V)];
  const outputs = qs.map((q, b) =>
    q.map((row, i) => {
      const scores = ks[b].map((key, j) => {
        // audit: mask
        if (!allowed(b, i, j)) return -Infinity;
        // audit: scores
        const dot = row.reduce((acc, x, c) => acc + x * key[c], 0);
        // audit: scale
        return dot / Math.sqrt(dK);
      });
      const p = softmaxList(scores);
      // audit: values
      return vs[b][0].map((_, c) => p.reduce((acc, w, j) => acc + w * vs[b][j][c], 0));
    }));
  // audit: output
  return { shape: [...lead, Q.shape[Q.ndim - 2], V.shape[V.ndim - 1]], data: outputs.flat(2) };
}

export function causalMask(seqLen: number): { shape: number[]; data: boolean[] } {
  // audit: causal
  return { shape: [seqLen, seqLen], data: Array.from({ length: seqLen * seqLen }, (_, at) => at % seqLen <= Math.floor(at / seqLen)) };
}

export function multiHeadSelfAttention(
  x: Tensor,
  w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  numHeads: number,
  mask?: Tensor,
): Plain {
  // audit: mhsa_shape
  const [seq, d] = x.shape.slice(-2);
  const dHead = d / numHeads;
  const rows = Array.from({ length: x.size / d }, (_, r) => Array.from(x.data.subarray(r * d, (r + 1) * d)));
  // audit: projection
  const linear = (input: Matrix, weight: Tensor): Matrix => input.map((row) => Array.from({ length: d }, (_, o) => row.reduce((acc, v, c) => acc + v * weight.data[o * d + c], 0)));
  const [q, k, v] = [w.qProj, w.kProj, w.vProj].map((p) => linear(rows, p));
  // audit: split
  const head = (m: Matrix, h: number) => ({
    shape: [m.length / seq, seq, dHead],
    data: Float64Array.from(m.flatMap((row) => row.slice(h * dHead, (h + 1) * dHead))),
    ndim: 3,
    size: m.length * dHead,
  }) as unknown as Tensor;
  const perHead = Array.from({ length: numHeads }, (_, h) => scaledDotProductAttention(head(q, h), head(k, h), head(v, h), mask)); // audit: split, heads
  // audit: merge
  const concat = rows.map((_, r) => perHead.flatMap((out) => out.data.slice(r * dHead, (r + 1) * dHead)));
  // audit: oproj
  return { shape: [...x.shape], data: linear(concat, w.oProj).flat() };
}
