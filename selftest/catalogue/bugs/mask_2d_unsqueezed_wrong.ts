/** Pads a lower-rank mask with new dims after the first instead of in front: a 2-D mask no longer broadcasts over the batch. */
import type { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) {
    let m = mask;
    while (m.ndim < scores.ndim) m = m.unsqueeze(1);
    scores = scores.maskedFill(m.logicalNot(), -Infinity);
  }
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}
