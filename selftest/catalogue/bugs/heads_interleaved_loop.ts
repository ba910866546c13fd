/** Gives head h every numHeads-th feature in its loops (h + numHeads·i), not a contiguous block. */
import type { Tensor } from '../../../lib/tensor';
import type { Weights } from './base';
import { loopMultiHead } from './loops';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor) {
  return loopMultiHead(x, w, numHeads, mask, { feature: (h, i, _dHead, numHeads) => i * numHeads + h });
}
