/** The scores with the operands the other way round: K Qᵀ, not Q Kᵀ (right only when every query equals its key). */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = K.matmul(Q.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const p = softmax(scores, -1);
  return p.maskedFill(p.isNaN(), 0).matmul(V);
}
