/**
 * Correct, in float64 loops over `data` in one function per graded function, as a student who
 * ignores the tensor methods writes them. It must get full marks. The `// audit:` lines name the
 * part each line computes, for the diagnosis audit (see tensor_methods.ts).
 */
import { Tensor } from '../../../lib/tensor';

export function softmax(x: Tensor, dim: number): Tensor {
  // audit: axis
  const axis = dim < 0 ? dim + x.ndim : dim;
  const n = x.shape[axis];
  let inner = 1;
  for (let d = axis + 1; d < x.ndim; d++) inner *= x.shape[d];
  const outer = x.size / (n * inner);
  const out = new Float64Array(x.size);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = o * n * inner + i; // audit: axis
      // audit: max
      let max = -Infinity;
      for (let j = 0; j < n; j++) max = Math.max(max, x.data[base + j * inner]);
      // audit: sum
      let sum = 0;
      for (let j = 0; j < n; j++) {
        out[base + j * inner] = Math.exp(x.data[base + j * inner] - max); // audit: exp
        sum += out[base + j * inner];
      }
      // audit: normalise
      for (let j = 0; j < n; j++) out[base + j * inner] /= sum;
    }
  }
  return new Tensor(out, x.shape);
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  // audit: shape
  const batch = Q.shape.slice(0, -2);
  const nQ = Q.shape[Q.ndim - 2];
  const dK = Q.shape[Q.ndim - 1];
  const nK = K.shape[K.ndim - 2];
  const dV = V.shape[V.ndim - 1];
  let entries = 1;
  for (const d of batch) entries *= d;
  // audit: mask
  const maskStrides = mask ? mask.shape.map((n, d) => (n === 1 ? 0 : mask.shape.slice(d + 1).reduce((a, b) => a * b, 1))) : [];
  // 1 where the key is hidden: what the loop below asks.
  const blocked = mask ? mask.data.slice() : new Uint8Array(0);
  for (let at = 0; at < blocked.length; at++) blocked[at] = blocked[at] === 0 ? 1 : 0;
  // audit: output
  const out = new Float64Array(entries * nQ * dV);
  // audit: scale
  const scale = 1 / Math.sqrt(dK);
  const scores = new Float64Array(nK);
  // audit: batch
  for (let b = 0; b < entries; b++) {
    for (let i = 0; i < nQ; i++) {
      // audit: max
      let max = -Infinity;
      for (let j = 0; j < nK; j++) {
        // audit: scores
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += Q.data[(b * nQ + i) * dK + c] * K.data[(b * nK + j) * dK + c];
        // audit: mask
        let offset = 0;
        const index = [...batch.map((n, d) => Math.floor(b / batch.slice(d + 1).reduce((x, y) => x * y, 1)) % n), i, j];
        const own = index.slice(index.length - (mask?.ndim ?? 0));
        for (let d = 0; d < own.length; d++) offset += own[d] * maskStrides[d];
        const allowed = !mask || blocked[offset] === 0;
        scores[j] = allowed ? dot * scale : -Infinity; // audit: mask, scale
        max = Math.max(max, scores[j]); // audit: max
      }
      // audit: empty
      if (max === -Infinity) continue;
      // audit: sum
      let sum = 0;
      for (let j = 0; j < nK; j++) {
        scores[j] = Math.exp(scores[j] - max); // audit: exp
        sum += scores[j];
      }
      // audit: values
      for (let j = 0; j < nK; j++) {
        const p = scores[j] / sum; // audit: normalise
        for (let c = 0; c < dV; c++) out[(b * nQ + i) * dV + c] += p * V.data[(b * nK + j) * dV + c];
      }
    }
  }
  // audit: output
  return new Tensor(out, [...batch, nQ, dV]);
}

export function causalMask(seqLen: number): Tensor {
  // audit: causal
  const data = new Uint8Array(seqLen * seqLen);
  for (let i = 0; i < seqLen; i++) for (let j = 0; j <= i; j++) data[i * seqLen + j] = 1;
  return new Tensor(data, [seqLen, seqLen]);
}

export function multiHeadSelfAttention(
  x: Tensor,
  w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  numHeads: number,
  mask?: Tensor,
): Tensor {
  // audit: mhsa_shape
  const seq = x.shape[x.ndim - 2];
  const d = x.shape[x.ndim - 1];
  const rows = x.size / d;
  const dHead = d / numHeads;
  // audit: projection
  const project = (input: ArrayLike<number>, weight: Tensor) => {
    const y = new Float64Array(rows * d);
    for (let r = 0; r < rows; r++) for (let o = 0; o < d; o++) for (let c = 0; c < d; c++) y[r * d + o] += input[r * d + c] * weight.data[o * d + c];
    return y;
  };
  const [q, k, v] = [project(x.data, w.qProj), project(x.data, w.kProj), project(x.data, w.vProj)];
  // audit: split
  const split = (t: Float64Array) => {
    const heads = new Float64Array(t.length);
    for (let r = 0; r < rows; r++) for (let h = 0; h < numHeads; h++) for (let c = 0; c < dHead; c++) {
      heads[((Math.floor(r / seq) * numHeads + h) * seq + (r % seq)) * dHead + c] = t[r * d + h * dHead + c];
    }
    return new Tensor(heads, [rows / seq, numHeads, seq, dHead]);
  };
  const attended = scaledDotProductAttention(split(q), split(k), split(v), mask); // audit: split, heads
  // audit: merge
  const concat = new Float64Array(rows * d);
  for (let r = 0; r < rows; r++) for (let h = 0; h < numHeads; h++) for (let c = 0; c < dHead; c++) {
    concat[r * d + h * dHead + c] = attended.data[((Math.floor(r / seq) * numHeads + h) * seq + (r % seq)) * dHead + c];
  }
  // audit: oproj
  return new Tensor(project(concat, w.oProj), x.shape);
}
