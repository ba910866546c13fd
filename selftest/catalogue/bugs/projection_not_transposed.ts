/** Computes x W instead of x Wᵀ (ignores the (out, in) layout of nn.Linear). */
import type { Tensor } from '../../../lib/tensor';
import { mergeHeads, scaledDotProductAttention, splitHeads, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const q = splitHeads(x.matmul(w.qProj), numHeads);
  const k = splitHeads(x.matmul(w.kProj), numHeads);
  const v = splitHeads(x.matmul(w.vProj), numHeads);
  return mergeHeads(scaledDotProductAttention(q, k, v, mask)).matmul(w.oProj);
}
