/** Multiplies the scores by the mask, so masked scores become 0 instead of −∞. */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = scores.mul(mask.astype('float64'));
  return softmax(scores, -1).matmul(V);
}
