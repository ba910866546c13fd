/** Its own softmax subtracts the max of all the scores, not each query's row max; NaN rows are cleared to 0. */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const e = scores.sub(scores.max()).exp();
  const probs = e.div(e.sum(-1, true));
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}
