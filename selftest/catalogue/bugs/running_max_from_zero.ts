/**
 * A running max that starts at 0 instead of −∞: exact while a row has a score above 0, but for a
 * query whose scores are all far below 0 every exp(score − 0) underflows to 0, and 0/0 is NaN.
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
      const scores: number[] = [];
      let any = false;
      let max = 0;
      for (let j = 0; j < nK; j++) {
        const allowed = !mask || maskAllows(mask, batch, b, i, j);
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += Q.data[(b * nQ + i) * dK + c] * K.data[(b * nK + j) * dK + c];
        scores.push(allowed ? dot / Math.sqrt(dK) : -Infinity);
        if (allowed) [any, max] = [true, Math.max(max, scores[j])];
      }
      if (!any) continue;
      const exps = scores.map((s) => Math.exp(s - max));
      const total = exps.reduce((a, e) => a + e, 0);
      for (let j = 0; j < nK; j++) for (let c = 0; c < dV; c++) out[(b * nQ + i) * dV + c] += (exps[j] / total) * V.data[(b * nK + j) * dV + c];
    }
  }
  return new Tensor(out, [...batch, nQ, dV]);
}
