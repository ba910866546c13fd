/**
 * The optional parts' functions, correct, in float32 arithmetic throughout and in another order than
 * the reference's: each projection summed from the last feature down, Q scaled before Q Kᵀ, exp
 * taken base 2 with log₂e folded into the scale (FlashAttention's step), the weights normalised by
 * one reciprocal. The core functions are float32_loops.ts's. It must get full marks: the parts'
 * float32 bounds (reference/float32Error) must hold for it.
 */
import { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention, softmax } from './float32_loops';

const f = Math.fround;
const LOG2E = f(Math.LOG2E);
const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** Whether batch entry b's query i may see key j, the mask broadcast from the right over `lead`. */
function allowed(mask: Tensor | undefined, lead: readonly number[], b: number, i: number, j: number): boolean {
  if (!mask) return true;
  const index: number[] = [];
  let rest = b;
  for (let d = lead.length - 1; d >= 0; d--) {
    index.unshift(rest % lead[d]);
    rest = Math.floor(rest / lead[d]);
  }
  index.push(i, j);
  let offset = 0;
  for (let d = 0; d < mask.ndim; d++) offset = offset * mask.shape[d] + (mask.shape[d] === 1 ? 0 : index[index.length - mask.ndim + d]);
  return mask.data[offset] !== 0;
}

/** Attention of float32 rows: Q [B, nQ, d], K [B, nK, d], V [B, nK, dV] flattened, `factor` the scores' scale. */
function attend(q: ArrayLike<number>, k: ArrayLike<number>, v: ArrayLike<number>, [B, nQ, nK, d, dV]: number[], factor: number, lead: readonly number[], mask?: Tensor) {
  const output = new Float32Array(B * nQ * dV);
  const weights = new Float32Array(B * nQ * nK);
  const scale = f(factor * LOG2E);
  const scaledQ = Float32Array.from(q, (x) => f(x * scale));
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < nQ; i++) {
      const row = weights.subarray((b * nQ + i) * nK, (b * nQ + i + 1) * nK);
      let max = -Infinity;
      for (let j = 0; j < nK; j++) {
        if (!allowed(mask, lead, b, i, j)) continue;
        let dot = 0;
        for (let c = 0; c < d; c++) dot = f(dot + f(scaledQ[(b * nQ + i) * d + c] * k[(b * nK + j) * d + c]));
        row[j] = dot;
        max = Math.max(max, dot);
      }
      if (max === -Infinity) continue;
      let sum = 0;
      for (let j = 0; j < nK; j++) {
        row[j] = allowed(mask, lead, b, i, j) ? f(2 ** f(row[j] - max)) : 0;
        sum = f(sum + row[j]);
      }
      const inverse = f(1 / sum);
      for (let j = 0; j < nK; j++) row[j] = f(row[j] * inverse);
      for (let c = 0; c < dV; c++) {
        let acc = 0;
        for (let j = 0; j < nK; j++) acc = f(acc + f(row[j] * v[(b * nK + j) * dV + c]));
        output[(b * nQ + i) * dV + c] = acc;
      }
    }
  }
  return { output, weights };
}

export function attention(Q: Tensor, K: Tensor, V: Tensor, options: { mask?: Tensor; scale?: boolean; returnWeights?: boolean } = {}) {
  const lead = Q.shape.slice(0, -2);
  const [nQ, d] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const { output, weights } = attend(Q.data, K.data, V.data, [size(lead), nQ, nK, d, dV], options.scale === false ? 1 : f(1 / Math.sqrt(d)), lead, options.mask);
  const out = new Tensor(output, [...lead, nQ, dV]);
  return options.returnWeights === false ? { output: out } : { output: out, weights: new Tensor(weights, [...lead, nQ, nK]) };
}

/** rows [r, dIn] · Wᵀ + b in float32, each sum from the last feature down. */
function linear(x: ArrayLike<number>, rows: number, w: Tensor, b: Tensor): Float32Array {
  const [dOut, dIn] = w.shape;
  const y = new Float32Array(rows * dOut);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < dOut; o++) {
      let acc = 0;
      for (let c = dIn - 1; c >= 0; c--) acc = f(acc + f(x[r * dIn + c] * w.data[o * dIn + c]));
      y[r * dOut + o] = f(acc + b.data[o]);
    }
  }
  return y;
}

interface Biased {
  qProj: Tensor; qBias: Tensor; kProj: Tensor; kBias: Tensor; vProj: Tensor; vBias: Tensor; oProj?: Tensor; oBias?: Tensor;
}

export function singleHeadAttention(x: Tensor, w: Biased, options: { scale?: boolean; mask?: Tensor } = {}): Tensor {
  const [seq, D] = x.shape.slice(-2);
  const batches = x.size / (seq * D);
  const [q, k, v] = [[w.qProj, w.qBias], [w.kProj, w.kBias], [w.vProj, w.vBias]].map(([p, b]) => linear(x.data, batches * seq, p, b));
  const { output } = attend(q, k, v, [batches, seq, seq, D, D], options.scale === false ? 1 : f(1 / Math.sqrt(D)), [batches], options.mask);
  return new Tensor(output, x.shape);
}

export function multiHeadAttention(x: Tensor, w: Required<Biased>, numHeads: number, options: { mask?: Tensor } = {}) {
  const [seq, D] = x.shape.slice(-2);
  const batches = x.size / (seq * D);
  const dH = D / numHeads;
  const [q, k, v] = [[w.qProj, w.qBias], [w.kProj, w.kBias], [w.vProj, w.vBias]].map(([p, b]) => linear(x.data, batches * seq, p, b));
  // [batches·seq, D] → [batches, heads, seq, dH]
  const split = (t: Float32Array) => Float32Array.from({ length: t.length }, (_, i) => {
    const [bh, s, c] = [Math.floor(i / (seq * dH)), Math.floor(i / dH) % seq, i % dH];
    return t[(Math.floor(bh / numHeads) * seq + s) * D + (bh % numHeads) * dH + c];
  });
  const heads = attend(split(q), split(k), split(v), [batches * numHeads, seq, seq, dH, dH], f(1 / Math.sqrt(dH)), [batches * numHeads], options.mask);
  const merged = new Float32Array(batches * seq * D);
  heads.output.forEach((value, i) => {
    const [bh, s, c] = [Math.floor(i / (seq * dH)), Math.floor(i / dH) % seq, i % dH];
    merged[(Math.floor(bh / numHeads) * seq + s) * D + (bh % numHeads) * dH + c] = value;
  });
  return {
    output: new Tensor(linear(merged, batches * seq, w.oProj, w.oBias), x.shape),
    weights: new Tensor(heads.weights, [...x.shape.slice(0, -2), numHeads, seq, seq]),
  };
}
