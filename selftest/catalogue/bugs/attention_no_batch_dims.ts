/** Counts the batch entries with reduce() and no initial value: Q, K, V with no batch dims throw. */
import type { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const batch = Q.shape.slice(0, -2);
  const entries = batch.reduce((a, b) => a * b);
  const [nQ, dK] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  let scores = Q.reshape(entries, nQ, dK).matmul(K.reshape(entries, nK, dK).transpose(1, 2)).div(Math.sqrt(dK)).reshape(...batch, nQ, nK);
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).reshape(entries, nQ, nK).matmul(V.reshape(entries, nK, dV)).reshape(...batch, nQ, dV);
}
