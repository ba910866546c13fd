/** Its attention calls a helper softmax (exp_helper.ts) that does not subtract the row max. */
import { Tensor } from '../../../lib/tensor';
import { rowSoftmax } from './exp_helper';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const p = rowSoftmax(scores);
  return p.maskedFill(p.isNaN(), 0).matmul(V);
}
