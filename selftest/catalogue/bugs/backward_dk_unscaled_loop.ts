/** Forgets the 1/√d_k in dK, in loops: the scale is put on dQ's terms only. */
import { Tensor } from '../../../lib/tensor';
import { probabilityRow } from './backward_loops';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention, softmax, softmaxBackward } from './backward_loops';

const f = Math.fround;
const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

export function scaledDotProductAttentionBackward(Q: Tensor, K: Tensor, V: Tensor, dOut: Tensor, mask?: Tensor) {
  const [nQ, d] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const scale = f(1 / Math.sqrt(d));
  const [gQ, gK, gV] = [new Float32Array(Q.size), new Float32Array(K.size), new Float32Array(V.size)];
  for (let b = 0; b < size(Q.shape.slice(0, -2)); b++) {
    for (let i = 0; i < nQ; i++) {
      const p = probabilityRow(Q, K, mask, b, i);
      const dP = new Float32Array(nK);
      let rowSum = 0;
      for (let j = 0; j < nK; j++) {
        for (let c = 0; c < dV; c++) dP[j] = f(dP[j] + f(dOut.data[(b * nQ + i) * dV + c] * V.data[(b * nK + j) * dV + c]));
        rowSum = f(rowSum + f(p[j] * dP[j]));
      }
      for (let j = 0; j < nK; j++) {
        const dS = f(p[j] * f(dP[j] - rowSum));
        for (let c = 0; c < d; c++) {
          gQ[(b * nQ + i) * d + c] = f(gQ[(b * nQ + i) * d + c] + f(f(dS * scale) * K.data[(b * nK + j) * d + c]));
          gK[(b * nK + j) * d + c] = f(gK[(b * nK + j) * d + c] + f(dS * Q.data[(b * nQ + i) * d + c]));
        }
        for (let c = 0; c < dV; c++) gV[(b * nK + j) * dV + c] = f(gV[(b * nK + j) * dV + c] + f(p[j] * dOut.data[(b * nQ + i) * dV + c]));
      }
    }
  }
  return { dQ: new Tensor(gQ, Q.shape), dK: new Tensor(gK, K.shape), dV: new Tensor(gV, V.shape) };
}
