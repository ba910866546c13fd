/**
 * Plain loops whose score for query i and key j is key i's row times query j's (K Qᵀ where Q Kᵀ
 * belongs); where n_q ≠ n_k it reads past a row's end (undefined, so NaN).
 */
import { Tensor } from '../../../lib/tensor';
import { maskAllows } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const batch = Q.shape.slice(0, -2);
  const [nQ, dK] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const entries = batch.reduce((a, b) => a * b, 1);
  const out = new Float64Array(entries * nQ * dV);
  for (let b = 0; b < entries; b++) {
    for (let i = 0; i < nQ; i++) {
      const scores = new Float64Array(nK);
      let max = -Infinity;
      for (let j = 0; j < nK; j++) {
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += K.data[(b * nK + i) * dK + c] * Q.data[(b * nQ + j) * dK + c];
        scores[j] = !mask || maskAllows(mask, batch, b, i, j) ? dot / Math.sqrt(dK) : -Infinity;
        max = Math.max(max, scores[j]);
      }
      if (max === -Infinity) continue;
      let total = 0;
      for (let j = 0; j < nK; j++) total += (scores[j] = Math.exp(scores[j] - max));
      for (let j = 0; j < nK; j++) {
        for (let c = 0; c < dV; c++) out[(b * nQ + i) * dV + c] += (scores[j] / total) * V.data[(b * nK + j) * dV + c];
      }
    }
  }
  return new Tensor(out, [...batch, nQ, dV]);
}
