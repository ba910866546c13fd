/** Problem 2's SimpleAttention kept for Problem 3: the scores are never divided by √d_k, whatever `scale` says. */
import { Tensor } from '../../../lib/tensor';
import { linear, softmax, type BiasedWeights } from './base';

export { attention, causalMask, multiHeadAttention, multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function singleHeadAttention(x: Tensor, w: Omit<BiasedWeights, 'oProj' | 'oBias'>, options: { scale?: boolean; mask?: Tensor } = {}): Tensor {
  const q = linear(x, w.qProj, w.qBias);
  const k = linear(x, w.kProj, w.kBias);
  const v = linear(x, w.vProj, w.vBias);
  let scores = q.matmul(k.transpose(-2, -1));
  if (options.mask) scores = scores.maskedFill(options.mask.eq(0), -Infinity);
  return softmax(scores, -1).matmul(v);
}
