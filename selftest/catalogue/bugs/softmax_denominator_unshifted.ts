/** Shifts the numerator by each slice's max but sums the exps of x itself: every slice is off by the factor e^(−max). */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number): Tensor {
  const numerator = x.sub(x.max(dim, true)).exp();
  return numerator.div(x.exp().sum(dim, true));
}
