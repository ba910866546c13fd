/**
 * The softmax's running denominator is declared once per call, not once per query: each row is
 * divided by the sum of its own exps plus every earlier row's (of every earlier batch entry too).
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
  const weights = new Float64Array(nK);
  let denominator = 0;
  for (let b = 0; b < entries; b++) {
    for (let i = 0; i < nQ; i++) {
      let max = -Infinity;
      for (let j = 0; j < nK; j++) {
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += Q.data[(b * nQ + i) * dK + c] * K.data[(b * nK + j) * dK + c];
        weights[j] = !mask || maskAllows(mask, batch, b, i, j) ? dot / Math.sqrt(dK) : -Infinity;
        max = Math.max(max, weights[j]);
      }
      if (max === -Infinity) continue;
      for (let j = 0; j < nK; j++) {
        weights[j] = Math.exp(weights[j] - max);
        denominator += weights[j];
      }
      for (let j = 0; j < nK; j++) {
        for (let c = 0; c < dV; c++) out[(b * nQ + i) * dV + c] += (weights[j] / denominator) * V.data[(b * nK + j) * dV + c];
      }
    }
  }
  return new Tensor(out, [...batch, nQ, dV]);
}
