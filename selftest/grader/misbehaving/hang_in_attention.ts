/** Attention never returns; the other functions are correct and must keep their points. */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, _K: Tensor, _V: Tensor, _mask?: Tensor): Tensor {
  for (;;) if (Q.size < 0) return Q;
}
