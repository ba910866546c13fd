/** Divides the output P V by √d_k instead of the scores. */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const p = softmax(scores, -1);
  return p.maskedFill(p.isNaN(), 0).matmul(V).div(Math.sqrt(Q.shape[Q.ndim - 1]));
}
