/** In its loops a masked score is the score times 0, so 0 rather than −∞. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { fill: 0 });
}
