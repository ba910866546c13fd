/** Flattens the batch dims bmm-style, and the mask with them unless it is 2-D: a mask with size-1 or missing batch dims no longer lines up. */
import type { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const [nQ, dK] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const q = Q.reshape(-1, nQ, dK);
  const k = K.reshape(-1, nK, dK);
  let scores = q.matmul(k.transpose(1, 2)).div(Math.sqrt(dK));
  if (mask) scores = scores.maskedFill((mask.ndim === 2 ? mask : mask.reshape(-1, nQ, nK)).logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).matmul(V.reshape(-1, nK, dV)).reshape(...Q.shape.slice(0, -2), nQ, dV);
}
