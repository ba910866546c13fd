/** Reads the keys of batch entry 0 for every entry (the K offset forgets b). */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { keyOffset: (_b, j, c, _nK, dK) => j * dK + c });
}
