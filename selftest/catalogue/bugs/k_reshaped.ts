/** Reshapes K to [..., d_k, n_k] instead of transposing it: the shapes fit, the values do not. */
import type { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const [nK, dK] = K.shape.slice(-2);
  let scores = Q.matmul(K.reshape(...K.shape.slice(0, -2), dK, nK)).div(Math.sqrt(dK));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}
