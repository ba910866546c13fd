/** Plain loops whose softmax shifts each exp by the row max but adds up the exps of the unshifted scores. */
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
        for (let c = 0; c < dK; c++) dot += Q.data[(b * nQ + i) * dK + c] * K.data[(b * nK + j) * dK + c];
        scores[j] = !mask || maskAllows(mask, batch, b, i, j) ? dot / Math.sqrt(dK) : -Infinity;
        max = Math.max(max, scores[j]);
      }
      if (max === -Infinity) continue;
      let total = 0;
      for (let j = 0; j < nK; j++) total += Math.exp(scores[j]);
      for (let j = 0; j < nK; j++) {
        const p = Math.exp(scores[j] - max) / total;
        for (let c = 0; c < dV; c++) out[(b * nQ + i) * dV + c] += p * V.data[(b * nK + j) * dV + c];
      }
    }
  }
  return new Tensor(out, [...batch, nQ, dV]);
}
