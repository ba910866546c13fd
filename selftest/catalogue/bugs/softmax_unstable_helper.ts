/** Its softmax is a helper file's (softmax_helper_exp.ts), which never subtracts the max. */
import type { Tensor } from '../../../lib/tensor';
import { normalisedExp } from './softmax_helper_exp';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number): Tensor {
  return normalisedExp(x, dim);
}
