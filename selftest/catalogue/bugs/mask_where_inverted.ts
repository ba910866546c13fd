/** Tensor.where with its branches swapped: −∞ where the mask allows, the score where it does not. */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = Tensor.where(mask, -Infinity, scores);
  const p = softmax(scores, -1);
  return p.maskedFill(p.isNaN(), 0).matmul(V);
}
