/**
 * Online softmax (one pass over the keys, as in FlashAttention) that forgets to rescale what it has
 * summed when a larger score arrives: rows still sum to 1, but the weights are not softmax's.
 * No cause is named; the probabilities probe says they are off, and where.
 */
import { Tensor } from '../../../lib/tensor';
import { maskAllows } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): { shape: number[]; data: Float64Array } {
  const batch = Q.shape.slice(0, -2);
  const [nQ, dK] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const entries = batch.reduce((a, b) => a * b, 1);
  const out = new Float64Array(entries * nQ * dV);
  for (let b = 0; b < entries; b++) {
    for (let i = 0; i < nQ; i++) {
      let [max, total] = [-Infinity, 0];
      const acc = new Float64Array(dV);
      for (let j = 0; j < nK; j++) {
        if (mask && !maskAllows(mask, batch, b, i, j)) continue;
        let score = 0;
        for (let c = 0; c < dK; c++) score += Q.data[(b * nQ + i) * dK + c] * K.data[(b * nK + j) * dK + c];
        score /= Math.sqrt(dK);
        max = Math.max(max, score); // the sum and acc so far should be multiplied by exp(old max − max)
        const weight = Math.exp(score - max);
        total += weight;
        for (let c = 0; c < dV; c++) acc[c] += weight * V.data[(b * nK + j) * dV + c];
      }
      for (let c = 0; c < dV; c++) out[(b * nQ + i) * dV + c] = total > 0 ? acc[c] / total : 0;
    }
  }
  return { shape: [...batch, nQ, dV], data: out };
}
