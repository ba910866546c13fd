/** Runs one attention over all dModel features (heads never split). */
import type { Tensor } from '../../../lib/tensor';
import { scaledDotProductAttention, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  void numHeads;
  const q = x.matmul(w.qProj.transpose(0, 1));
  const k = x.matmul(w.kProj.transpose(0, 1));
  const v = x.matmul(w.vProj.transpose(0, 1));
  return scaledDotProductAttention(q, k, v, mask).matmul(w.oProj.transpose(0, 1));
}
