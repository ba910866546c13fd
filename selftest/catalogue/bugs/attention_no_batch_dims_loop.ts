/** Refuses Q, K, V without a batch dim ("…batch-like dims" read as one or more): 2-D inputs throw. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  if (Q.ndim < 3) throw new Error(`scaledDotProductAttention: Q must be [batch, ..., n_q, d_k], got [${Q.shape.join(', ')}]`);
  return loopAttention(Q, K, V, mask);
}
