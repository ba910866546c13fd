/** Applies the mask after the softmax (zeroing masked probabilities) without renormalising. */
import type { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  let probs = softmax(scores, -1);
  if (mask) probs = probs.maskedFill(mask.logicalNot(), 0);
  return probs.matmul(V);
}
