/** Normalises by the sum of the whole tensor instead of along dim. */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number): Tensor {
  const e = x.sub(x.max(dim, true)).exp();
  return e.div(e.sum());
}
