/** Project 4's attention masking with −1e9 instead of −∞, no NaN to clear: a fully masked query weighs its keys equally. */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadAttention, multiHeadSelfAttention, scaledDotProductAttention, singleHeadAttention, softmax } from './base';

export function attention(Q: Tensor, K: Tensor, V: Tensor, { mask, scale = true, returnWeights = true }: { mask?: Tensor; scale?: boolean; returnWeights?: boolean } = {}) {
  let scores = Q.matmul(K.transpose(-2, -1));
  if (scale) scores = scores.div(Math.sqrt(Q.shape[Q.ndim - 1]));
  if (mask) scores = scores.maskedFill(mask.eq(0), -1e9);
  const weights = softmax(scores, -1);
  return returnWeights ? { output: weights.matmul(V), weights } : { output: weights.matmul(V) };
}
