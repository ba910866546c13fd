/** Reads d_k as Q.shape[-1], a Python habit: undefined in TypeScript, so the scale is NaN. */
import type { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[-1]));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  return softmax(scores, -1).matmul(V);
}
