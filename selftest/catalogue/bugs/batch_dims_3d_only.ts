/** Assumes exactly one batch dim (reads B, n, d from the shape): 4-D and 5-D inputs break. */
import type { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const [B, nQ, dK] = Q.shape;
  const nK = K.shape[1];
  const q = Q.reshape(B, nQ, dK);
  const k = K.reshape(B, nK, dK);
  let scores = q.matmul(k.transpose(1, 2)).div(Math.sqrt(dK));
  if (mask) scores = scores.maskedFill(mask.reshape(B, nQ, nK).logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).matmul(V.reshape(B, nK, V.shape[2]));
}
