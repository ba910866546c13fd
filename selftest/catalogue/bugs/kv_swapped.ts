/** Uses V for the scores and K for the output: softmax(Q Vᵀ / √d_k) K. */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(V.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const p = softmax(scores, -1);
  return p.maskedFill(p.isNaN(), 0).matmul(K);
}
