/** Every head's weights averaged into one [..., seq, seq], as nn.MultiheadAttention returns them by default. */
import { Tensor } from '../../../lib/tensor';
import { attention, linear, mergeHeads, splitHeads, type BiasedWeights } from './base';

export { attention, causalMask, multiHeadSelfAttention, scaledDotProductAttention, singleHeadAttention, softmax } from './base';

export function multiHeadAttention(x: Tensor, w: BiasedWeights, numHeads: number, options: { mask?: Tensor } = {}) {
  const [q, k, v] = [linear(x, w.qProj, w.qBias), linear(x, w.kProj, w.kBias), linear(x, w.vProj, w.vBias)].map((t) => splitHeads(t, numHeads));
  const heads = attention(q, k, v, { mask: options.mask });
  return { output: linear(mergeHeads(heads.output), w.oProj, w.oBias), weights: heads.weights!.mean(-3) };
}
