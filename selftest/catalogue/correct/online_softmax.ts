/**
 * Correct, with an online softmax (one pass over the keys, as in FlashAttention): a running max,
 * and the sum and the weighted values so far rescaled by exp(old max − new max) whenever the max
 * grows. Float64 loops. It must get full marks. The `// audit:` lines name the part each line
 * computes (see tensor_methods.ts).
 */
import { Tensor } from '../../../lib/tensor';

export function softmax(x: Tensor, dim: number): Tensor {
  // audit: axis
  const axis = dim < 0 ? dim + x.ndim : dim;
  const n = x.shape[axis];
  const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const out = new Float64Array(x.size);
  for (let o = 0; o < x.size / (n * inner); o++) {
    for (let i = 0; i < inner; i++) {
      const at = (j: number) => (o * n + j) * inner + i; // audit: axis
      // audit: max
      let max = -Infinity;
      // audit: sum
      let sum = 0;
      for (let j = 0; j < n; j++) {
        const value = x.data[at(j)];
        if (value > max) {
          sum *= Math.exp(max - value); // audit: exp, sum
          max = value; // audit: max
        }
        sum += Math.exp(value - max); // audit: exp, sum
      }
      // audit: normalise
      for (let j = 0; j < n; j++) out[at(j)] = Math.exp(x.data[at(j)] - max) / sum; // audit: exp, normalise
    }
  }
  return new Tensor(out, x.shape);
}

/** Whether the mask allows [entry b, query i, key j]; the mask broadcasts from the right. */
// audit: mask
function allows(mask: Tensor, lead: readonly number[], b: number, i: number, j: number): boolean {
  const index = [...lead.map(() => 0), i, j];
  for (let d = lead.length - 1, rest = b; d >= 0; d--, rest = Math.floor(rest / lead[d + 1])) index[d] = rest % lead[d];
  let offset = 0;
  for (let d = 0; d < mask.ndim; d++) {
    const at = index[index.length - mask.ndim + d];
    offset = offset * mask.shape[d] + (mask.shape[d] === 1 ? 0 : at);
  }
  return mask.data[offset] !== 0;
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  // audit: shape
  const lead = Q.shape.slice(0, -2);
  const [nQ, dK] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const entries = lead.reduce((a, b) => a * b, 1);
  // audit: output
  const out = new Float64Array(entries * nQ * dV);
  // audit: batch
  for (let b = 0; b < entries; b++) {
    for (let i = 0; i < nQ; i++) {
      // audit: max
      let max = -Infinity;
      // audit: sum
      let sum = 0;
      // audit: values
      const acc = new Float64Array(dV);
      for (let j = 0; j < nK; j++) {
        // audit: mask
        if (mask && !allows(mask, lead, b, i, j)) continue;
        // audit: scores
        let score = 0;
        for (let c = 0; c < dK; c++) score += Q.data[(b * nQ + i) * dK + c] * K.data[(b * nK + j) * dK + c];
        // audit: scale
        score /= Math.sqrt(dK);
        // audit: max
        if (score > max) {
          const rescale = Math.exp(max - score); // audit: exp
          sum *= rescale; // audit: sum
          for (let c = 0; c < dV; c++) acc[c] *= rescale; // audit: values
          max = score;
        }
        // audit: exp
        const weight = Math.exp(score - max);
        sum += weight; // audit: sum
        for (let c = 0; c < dV; c++) acc[c] += weight * V.data[(b * nK + j) * dV + c]; // audit: values
      }
      // audit: empty
      if (sum === 0) continue;
      // audit: normalise
      for (let c = 0; c < dV; c++) out[(b * nQ + i) * dV + c] = acc[c] / sum; // audit: normalise, output
    }
  }
  // audit: output
  return new Tensor(out, [...lead, nQ, dV]);
}

export function causalMask(seqLen: number): Tensor {
  // audit: causal
  const data = new Uint8Array(seqLen * seqLen);
  for (let at = 0; at < data.length; at++) data[at] = at % seqLen <= Math.floor(at / seqLen) ? 1 : 0;
  return new Tensor(data, [seqLen, seqLen]);
}

export function multiHeadSelfAttention(
  x: Tensor,
  w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  numHeads: number,
  mask?: Tensor,
): Tensor {
  // audit: mhsa_shape
  const [seq, d] = x.shape.slice(-2);
  const entries = x.size / (seq * d);
  const dHead = d / numHeads;
  // audit: projection
  const linear = (input: ArrayLike<number>, weight: Tensor) => {
    const y = new Float64Array(entries * seq * d);
    for (let r = 0; r < entries * seq; r++) {
      for (let o = 0; o < d; o++) {
        let acc = 0;
        for (let c = 0; c < d; c++) acc += input[r * d + c] * weight.data[o * d + c];
        y[r * d + o] = acc;
      }
    }
    return y;
  };
  const [q, k, v] = [w.qProj, w.kProj, w.vProj].map((p) => linear(x.data, p));
  // audit: merge
  const concat = new Float64Array(entries * seq * d);
  for (let h = 0; h < numHeads; h++) {
    // audit: split
    const head = (t: Float64Array) => {
      const data = new Float64Array(entries * seq * dHead);
      for (let r = 0; r < entries * seq; r++) for (let c = 0; c < dHead; c++) data[r * dHead + c] = t[r * d + h * dHead + c];
      return new Tensor(data, [entries, seq, dHead]);
    };
    const attended = scaledDotProductAttention(head(q), head(k), head(v), mask); // audit: split, heads
    for (let r = 0; r < entries * seq; r++) for (let c = 0; c < dHead; c++) concat[r * d + h * dHead + c] = attended.data[r * dHead + c]; // audit: merge
  }
  // audit: oproj
  return new Tensor(linear(concat, w.oProj), x.shape);
}
