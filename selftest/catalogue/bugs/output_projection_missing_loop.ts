/** Plain loops that return the concatenated heads: oProj is never applied. */
import type { Tensor } from '../../../lib/tensor';
import type { Weights } from './base';
import { loopMultiHead } from './loops';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor) {
  return loopMultiHead(x, w, numHeads, mask, { noOutputProjection: true });
}
