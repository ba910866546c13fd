/**
 * Loops over the queries outside the batch entries and writes each finished row at a running
 * counter: row r of the output holds query ⌊r / entries⌋ of entry r mod entries, a permutation of
 * the rows whenever there is more than one batch entry.
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
  let row = 0;
  for (let i = 0; i < nQ; i++) {
    for (let b = 0; b < entries; b++) {
      const scores = new Float64Array(nK);
      let max = -Infinity;
      for (let j = 0; j < nK; j++) {
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += Q.data[(b * nQ + i) * dK + c] * K.data[(b * nK + j) * dK + c];
        scores[j] = !mask || maskAllows(mask, batch, b, i, j) ? dot / Math.sqrt(dK) : -Infinity;
        max = Math.max(max, scores[j]);
      }
      if (max !== -Infinity) {
        let total = 0;
        for (let j = 0; j < nK; j++) total += (scores[j] = Math.exp(scores[j] - max));
        for (let j = 0; j < nK; j++) {
          for (let c = 0; c < dV; c++) out[row * dV + c] += (scores[j] / total) * V.data[(b * nK + j) * dV + c];
        }
      }
      row++;
    }
  }
  return new Tensor(out, [...batch, nQ, dV]);
}
