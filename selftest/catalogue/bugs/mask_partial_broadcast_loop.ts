/** Reads a 2-D mask at [i, j] and any other as if it had every batch dim: [B, 1, n_q, n_k] or [n_k] are read wrong. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  const [nQ, nK] = [Q.shape[Q.ndim - 2], K.shape[K.ndim - 2]];
  return loopAttention(Q, K, V, mask, { allowed: (m, _batch, b, i, j) => (m.ndim === 2 ? m.data[i * nK + j] : m.data[(b * nQ + i) * nK + j]) === 1 });
}
