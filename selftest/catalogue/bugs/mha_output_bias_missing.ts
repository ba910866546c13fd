/** Project 4's multi-head attention with every bias but the output projection's. */
import { Tensor } from '../../../lib/tensor';
import { attention, linear, mergeHeads, splitHeads, type BiasedWeights } from './base';

export { attention, causalMask, multiHeadSelfAttention, scaledDotProductAttention, singleHeadAttention, softmax } from './base';

export function multiHeadAttention(x: Tensor, w: BiasedWeights, numHeads: number, options: { mask?: Tensor } = {}) {
  const q = splitHeads(linear(x, w.qProj, w.qBias), numHeads);
  const k = splitHeads(linear(x, w.kProj, w.kBias), numHeads);
  const v = splitHeads(linear(x, w.vProj, w.vBias), numHeads);
  const heads = attention(q, k, v, { mask: options.mask });
  return { output: mergeHeads(heads.output).matmul(w.oProj.transpose(0, 1)), weights: heads.weights! };
}
