/** Project 4's attention that scales whatever `scale` says (the flag read but never used): Problem 2's unscaled calls come out scaled. */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadAttention, multiHeadSelfAttention, scaledDotProductAttention, singleHeadAttention, softmax } from './base';

export function attention(Q: Tensor, K: Tensor, V: Tensor, options: { mask?: Tensor; scale?: boolean; returnWeights?: boolean } = {}) {
  const { mask, returnWeights = true } = options;
  const dK = Q.shape[Q.ndim - 1];
  let scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(dK));
  if (mask) scores = scores.maskedFill(mask.eq(0), -Infinity);
  const probs = softmax(scores, -1);
  const weights = probs.maskedFill(probs.isNaN(), 0);
  const output = weights.matmul(V);
  return returnWeights ? { output, weights } : { output };
}
