/**
 * The float32 error bound of multi-head self-attention (docs/float32-error.md): the projections'
 * errors carried into attention's bound (attention.ts), then through the output projection.
 */
import { attention } from './attention';
import { gamma, SECOND_ORDER, U, type Arr } from './terms';

/** y = x·Wᵀ over the last dim, with the bound of its float32 rounding in any order, plus what x already carries. */
function project(x: ArrayLike<number>, rows: number, w: Arr, carried?: ArrayLike<number>): { y: Float64Array; dy: Float64Array } {
  const [dOut, dIn] = w.shape;
  const y = new Float64Array(rows * dOut);
  const dy = new Float64Array(rows * dOut);
  // x and W read as float32 (2), dIn products and their sum in any order: dIn + 2 roundings of Σ|x||W|.
  const g = gamma(dIn + 2);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < dOut; o++) {
      let [sum, magnitude, spread] = [0, 0, 0];
      for (let c = 0; c < dIn; c++) {
        const [a, b] = [x[r * dIn + c], w.data[o * dIn + c]];
        sum += a * b;
        magnitude += Math.abs(a * b);
        spread += (carried?.[r * dIn + c] ?? 0) * Math.abs(b);
      }
      y[r * dOut + o] = sum;
      dy[r * dOut + o] = g * magnitude + spread;
    }
  }
  return { y, dy };
}

/** [rows = batches·seq, heads·dHead] ↔ [batches, heads, seq, dHead]. */
function heads(t: ArrayLike<number>, batches: number, seq: number, numHeads: number, dHead: number, back = false): Float64Array {
  const out = new Float64Array(t.length);
  for (let b = 0; b < batches; b++)
    for (let s = 0; s < seq; s++)
      for (let h = 0; h < numHeads; h++)
        for (let c = 0; c < dHead; c++) {
          const [flat, split] = [(b * seq + s) * numHeads * dHead + h * dHead + c, ((b * numHeads + h) * seq + s) * dHead + c];
          if (back) out[flat] = t[split];
          else out[split] = t[flat];
        }
  return out;
}

/**
 * x [...batch, seq, dModel], weights [dModel, dModel] (out, in), heads of contiguous features.
 * q, k, v = x·Wᵀ each within γ_{D+2}·|x||W|ᵀ; attention's bound with those carried (its scores
 * see δq·|k| + |q|·δk, its output Σ p δv); then y = h·W_oᵀ within Σ_c bound_c|W_o| + γ_{D+2}·|h||W_o|ᵀ
 * + u|y|. Reassociating (weights multiplied first, P·x before V's projection) moves the same
 * magnitudes by no more roundings than these.
 */
export function multiHeadBound(inputs: Readonly<Record<string, Arr>>, numHeads: number): Float64Array {
  const { x, q_proj: wq, k_proj: wk, v_proj: wv, o_proj: wo, mask } = inputs;
  const [seq, dModel] = x.shape.slice(-2);
  const rows = seq === 0 ? 0 : x.data.length / dModel;
  const batches = rows / seq;
  const dHead = dModel / numHeads;
  const split = (t: ArrayLike<number>) => ({ data: heads(t, batches, seq, numHeads, dHead), shape: [batches, numHeads, seq, dHead] });
  const [q, k, v] = [wq, wk, wv].map((w) => project(x.data, rows, w));
  const attended = attention({
    q: split(q.y), k: split(k.y), v: split(v.y), mask,
    dq: split(q.dy).data, dk: split(k.dy).data, dv: split(v.dy).data,
  });
  const merged = heads(attended.out, batches, seq, numHeads, dHead, true);
  const y = project(merged, rows, wo, heads(attended.bound, batches, seq, numHeads, dHead, true));
  return y.dy.map((e, i) => SECOND_ORDER * (e + U * Math.abs(y.y[i])));
}
