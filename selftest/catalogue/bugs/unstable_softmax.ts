/** Inlines a softmax without subtracting the max: exp overflows on large scores. */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const e = scores.exp();
  const probs = e.div(e.sum(-1, true));
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}
