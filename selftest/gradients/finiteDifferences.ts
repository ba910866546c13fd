/**
 * The gradients part's truth, computed without any backward pass: central finite differences of
 * the independent float64 forward pass (selftest/oracle.ts). Each input element is moved by ±h
 * and the change of L = Σ upstream ⊙ forward(inputs) measured, so the chain rule the reference
 * writes is checked against the definition of a gradient, not against itself.
 */
import * as oracle from '../oracle';

/** The step: small enough that the truncation error h²·f‴/6 is far below 1e-7, large enough that float64 rounding of L stays near 1e-10. */
const H = 1e-5;

const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** (L(x + h·e_i) − L(x − h·e_i)) / 2h for every i, `loss` reading the array it is handed. */
function centralDifferences(x: Float64Array, loss: (x: Float64Array) => number): Float64Array {
  const grad = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const kept = x[i];
    x[i] = kept + H;
    const up = loss(x);
    x[i] = kept - H;
    const down = loss(x);
    x[i] = kept;
    // −∞ (a masked softmax input) moved by h is still −∞: no change, no gradient.
    grad[i] = up === down ? 0 : (up - down) / (2 * H);
  }
  return grad;
}

/** ∂/∂x of Σ dy ⊙ softmax(x, dim) at x = log y: the gradient softmaxBackward(y, dy, dim) returns. */
export function softmaxBackwardByDifferences(y: oracle.Arr, dy: oracle.Arr, dim: number): oracle.Out {
  const x = Float64Array.from(y.data, Math.log);
  const loss = (at: Float64Array) => {
    const out = oracle.softmax({ data: at, shape: y.shape }, dim).data;
    let sum = 0;
    for (let i = 0; i < out.length; i++) sum += dy.data[i] * out[i];
    return sum;
  };
  return { data: centralDifferences(x, loss), shape: [...y.shape] };
}

/** Offset of the element of `shape` that broadcasts onto `index` (right-aligned; size-1 dims repeat). */
function offsetOf(shape: readonly number[], index: readonly number[]): number {
  let offset = 0;
  for (let d = 0; d < shape.length; d++) offset = offset * shape[d] + (shape[d] === 1 ? 0 : index[index.length - shape.length + d]);
  return offset;
}

/**
 * ∂L/∂Q, ∂L/∂K, ∂L/∂V of L = Σ dOut ⊙ attention(Q, K, V, mask), batch entry by batch entry (an
 * element moves only its own entry's output), each entry's mask read by index from its broadcast.
 */
export function attentionBackwardByDifferences(q: oracle.Arr, k: oracle.Arr, v: oracle.Arr, dOut: oracle.Arr, mask?: oracle.Arr): { dQ: oracle.Out; dK: oracle.Out; dV: oracle.Out } {
  const batch = q.shape.slice(0, -2);
  const [nQ, d] = q.shape.slice(-2);
  const [nK, dV] = v.shape.slice(-2);
  const grads = { dQ: new Float64Array(q.data.length), dK: new Float64Array(k.data.length), dV: new Float64Array(v.data.length) };
  for (let b = 0; b < size(batch); b++) {
    const index: number[] = [];
    for (let dim = batch.length - 1, rest = b; dim >= 0; dim--) {
      index.unshift(rest % batch[dim]);
      rest = Math.floor(rest / batch[dim]);
    }
    const entry = (t: oracle.Arr, rows: number, cols: number) => Float64Array.from({ length: rows * cols }, (_, x) => t.data[b * rows * cols + x]);
    const [qb, kb, vb, ob] = [entry(q, nQ, d), entry(k, nK, d), entry(v, nK, dV), entry(dOut, nQ, dV)];
    const mb = mask && { data: Uint8Array.from({ length: nQ * nK }, (_, x) => mask.data[offsetOf(mask.shape, [...index, Math.floor(x / nK), x % nK])]), shape: [nQ, nK] };
    const loss = (qs: Float64Array, ks: Float64Array, vs: Float64Array) => {
      const out = oracle.scaledDotProductAttention({ data: qs, shape: [nQ, d] }, { data: ks, shape: [nK, d] }, { data: vs, shape: [nK, dV] }, mb).data;
      let sum = 0;
      for (let i = 0; i < out.length; i++) sum += ob[i] * out[i];
      return sum;
    };
    grads.dQ.set(centralDifferences(qb, (x) => loss(x, kb, vb)), b * nQ * d);
    grads.dK.set(centralDifferences(kb, (x) => loss(qb, x, vb)), b * nK * d);
    grads.dV.set(centralDifferences(vb, (x) => loss(qb, kb, x)), b * nK * dV);
  }
  return { dQ: { data: grads.dQ, shape: [...q.shape] }, dK: { data: grads.dK, shape: [...k.shape] }, dV: { data: grads.dV, shape: [...v.shape] } };
}
