/** Loops, then adds x element by element: a residual that does not belong here. */
import type { Tensor } from '../../../lib/tensor';
import type { Weights } from './base';
import { loopMultiHead } from './loops';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor) {
  const out = loopMultiHead(x, w, numHeads, mask);
  for (let i = 0; i < out.data.length; i++) out.data[i] += x.data[i];
  return out;
}
