/** Passes K and V to its loops in the wrong order: keys from V, values from K. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, V, K, mask);
}
