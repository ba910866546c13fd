/** Reads Q without the batch entry's offset: every entry uses entry 0's queries. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { queryOffset: (_b, i, c, _nQ, dK) => i * dK + c });
}
