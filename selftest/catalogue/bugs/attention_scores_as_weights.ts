/** Loops that return the scaled scores as `weights` (the matrix before the softmax) beside a right output. */
import { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadAttention, multiHeadSelfAttention, scaledDotProductAttention, singleHeadAttention, softmax } from './base';

export function attention(Q: Tensor, K: Tensor, V: Tensor, options: { mask?: Tensor; scale?: boolean; returnWeights?: boolean } = {}) {
  const [nQ, d] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const batches = Q.size / (nQ * d);
  const factor = options.scale === false ? 1 : 1 / Math.sqrt(d);
  const scores = new Float64Array(batches * nQ * nK);
  const output = new Float64Array(batches * nQ * dV);
  const allowed = (b: number, i: number, j: number) => {
    const mask = options.mask;
    if (!mask) return true;
    const index = [...Q.shape.slice(0, -2).map((n, dim, lead) => Math.floor(b / lead.slice(dim + 1).reduce((a, c) => a * c, 1)) % n), i, j];
    let offset = 0;
    for (let m = 0; m < mask.ndim; m++) offset = offset * mask.shape[m] + (mask.shape[m] === 1 ? 0 : index[index.length - mask.ndim + m]);
    return mask.data[offset] !== 0;
  };
  for (let b = 0; b < batches; b++) {
    for (let i = 0; i < nQ; i++) {
      const row = new Float64Array(nK);
      let max = -Infinity;
      for (let j = 0; j < nK; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += Q.data[(b * nQ + i) * d + c] * K.data[(b * nK + j) * d + c];
        scores[(b * nQ + i) * nK + j] = row[j] = dot * factor;
        if (allowed(b, i, j)) max = Math.max(max, row[j]);
      }
      if (max === -Infinity) continue;
      let sum = 0;
      for (let j = 0; j < nK; j++) sum += row[j] = allowed(b, i, j) ? Math.exp(row[j] - max) : 0;
      for (let j = 0; j < nK; j++) for (let c = 0; c < dV; c++) output[(b * nQ + i) * dV + c] += (row[j] / sum) * V.data[(b * nK + j) * dV + c];
    }
  }
  const lead = Q.shape.slice(0, -2);
  const out = new Tensor(output, [...lead, nQ, dV]);
  return options.returnWeights === false ? { output: out } : { output: out, weights: new Tensor(scores, [...lead, nQ, nK]) };
}
