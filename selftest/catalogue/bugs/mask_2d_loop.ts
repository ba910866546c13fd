/** Reads the mask at the scores' own offset, as if it always had every batch dim: a 2-D mask is read past its end. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { allowed: (m, _batch, b, i, j) => m.data[(b * m.shape[m.ndim - 2] + i) * m.shape[m.ndim - 1] + j] === 1 });
}
