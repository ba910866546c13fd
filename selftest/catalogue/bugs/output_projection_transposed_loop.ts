/** Plain loops that read oProj as [in, out] (oProj[c][o]), the three input projections right. */
import type { Tensor } from '../../../lib/tensor';
import type { Weights } from './base';
import { loopMultiHead } from './loops';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor) {
  return loopMultiHead(x, w, numHeads, mask, { outputOffset: (o, c, d) => c * d + o });
}
