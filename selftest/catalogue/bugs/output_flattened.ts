/** Flattens the batch dims to one for a 3-D matmul and returns the result that way: [B·H, n_q, d_v]. */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const flat = (t: Tensor) => t.reshape(-1, ...t.shape.slice(-2));
  let scores = flat(Q).matmul(flat(K).transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = scores.maskedFill(flat(Tensor.ones([...Q.shape.slice(0, -1), K.shape[K.ndim - 2]], 'bool').logicalAnd(mask)).logicalNot(), -Infinity);
  const p = softmax(scores, -1);
  return p.maskedFill(p.isNaN(), 0).matmul(flat(V));
}
