/** Plain loops that split contiguous heads but write head h's feature i back at i·numHeads + h of the concatenation. */
import type { Tensor } from '../../../lib/tensor';
import type { Weights } from './base';
import { loopMultiHead } from './loops';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor) {
  return loopMultiHead(x, w, numHeads, mask, { mergeFeature: (h, i, _dHead, numHeads) => i * numHeads + h });
}
