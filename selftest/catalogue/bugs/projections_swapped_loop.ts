/** Hands its loops qProj and kProj the wrong way round. */
import type { Tensor } from '../../../lib/tensor';
import type { Weights } from './base';
import { loopMultiHead } from './loops';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor) {
  return loopMultiHead(x, { ...w, qProj: w.kProj, kProj: w.qProj }, numHeads, mask);
}
