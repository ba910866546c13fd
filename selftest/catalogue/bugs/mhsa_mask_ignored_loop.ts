/** Plain loops whose heads attend without the mask: causal multi-head attention sees the future. */
import type { Tensor } from '../../../lib/tensor';
import type { Weights } from './base';
import { loopMultiHead } from './loops';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor) {
  return loopMultiHead(x, w, numHeads, mask, { maskOf: () => undefined });
}
