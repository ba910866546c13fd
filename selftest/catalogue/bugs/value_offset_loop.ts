/** Reads V without the batch entry's offset: every entry's output mixes in entry 0's values. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { valueOffset: (_b, j, c, _nK, dV) => j * dV + c });
}
