/** Reads K as [d_k, n_k] in its loops (K.data[c * nK + j]): a reshape where a transpose belongs. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { keyOffset: (b, j, c, nK, dK) => b * nK * dK + c * nK + j });
}
