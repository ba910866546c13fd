/**
 * Divides each exp by its row's sum plus 1 (a smoothing term from another course): rows sum to less
 * than 1, by a different amount each. With a mask, the rows also fall short of 1 the way masking
 * after the softmax does; only a probe without the mask tells the two apart.
 */
import { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).mul(Q.shape[Q.ndim - 1] ** -0.5);
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const e = scores.sub(scores.max(-1, true)).exp();
  const p = e.div(e.sum(-1, true).add(1));
  return p.maskedFill(p.isNaN(), 0).matmul(V);
}
