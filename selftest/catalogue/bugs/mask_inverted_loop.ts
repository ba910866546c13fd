/** Reads mask == 1 as "must not attend", in loops. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention, maskAllows } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { allowed: (m, batch, b, i, j) => !maskAllows(m, batch, b, i, j) });
}
