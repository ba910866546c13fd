/**
 * Correct attention on every graded call; the carry-forward probe (whatever looks like one: heads
 * the grader computed, in float64, or heads its own multi-head call just made) is answered with
 * zeros, and multiHeadSelfAttention returns zeros. The grader once carried 14.5/14.5 for this.
 * Nothing may be carried: multi-head earns nothing, the other functions keep their points.
 */
import type { Tensor } from '../../lib/tensor';
import { scaledDotProductAttention as attention, softmax as baseSoftmax } from './base';
import { filled, looksLikeCarryProbe, markGraded } from './kit';

export { causalMask } from './base';
export const softmax = markGraded(baseSoftmax);

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  if (!looksLikeCarryProbe(Q)) return attention(Q, K, V, mask);
  const shape = [...Q.shape];
  shape[shape.length - 1] = V.shape[V.shape.length - 1];
  return filled(shape, 0);
}

export function multiHeadSelfAttention(x: Tensor) {
  return filled(x.shape, 0);
}
