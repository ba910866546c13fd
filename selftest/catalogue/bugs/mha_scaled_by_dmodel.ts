/** Each head's scores divided by √d_model, the whole model's width, instead of √d_head. */
import { Tensor } from '../../../lib/tensor';
import { linear, mergeHeads, softmax, splitHeads, type BiasedWeights } from './base';

export { attention, causalMask, multiHeadSelfAttention, scaledDotProductAttention, singleHeadAttention, softmax } from './base';

export function multiHeadAttention(x: Tensor, w: BiasedWeights, numHeads: number, options: { mask?: Tensor } = {}) {
  const dModel = x.shape[x.ndim - 1];
  const [q, k, v] = [linear(x, w.qProj, w.qBias), linear(x, w.kProj, w.kBias), linear(x, w.vProj, w.vBias)].map((t) => splitHeads(t, numHeads));
  let scores = q.matmul(k.transpose(-2, -1)).div(Math.sqrt(dModel));
  if (options.mask) scores = scores.maskedFill(options.mask.eq(0), -Infinity);
  const probs = softmax(scores, -1);
  const weights = probs.maskedFill(probs.isNaN(), 0);
  return { output: linear(mergeHeads(weights.matmul(v)), w.oProj, w.oBias), weights };
}
