/** Plain loops over the heads that stop one short (h < numHeads − 1): the last head's block of the concatenation stays zeros. */
import type { Tensor } from '../../../lib/tensor';
import type { Weights } from './base';
import { loopMultiHead } from './loops';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor) {
  return loopMultiHead(x, w, numHeads, mask, { headsAttended: (n) => n - 1 });
}
