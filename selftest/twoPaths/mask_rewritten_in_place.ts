/**
 * Right, then inverts the caller's mask in place. Graded on its own copy of the inputs, it passes
 * in both paths; a check that read the caller's mask after the call would see every allowed key as
 * masked (npm test once did, and failed it).
 */
import type { Tensor } from '../../lib/tensor';
import { scaledDotProductAttention as right } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const out = right(Q, K, V, mask);
  if (mask) for (let i = 0; i < mask.data.length; i++) mask.data[i] = mask.data[i] ? 0 : 1;
  return out;
}
