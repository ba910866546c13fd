/** Projections as x W + b: the [out, in] weights used as if they were [in, out]. */
import { Tensor } from '../../../lib/tensor';
import { attention, type BiasedWeights } from './base';

export { attention, causalMask, multiHeadAttention, multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function singleHeadAttention(x: Tensor, w: Omit<BiasedWeights, 'oProj' | 'oBias'>, options: { scale?: boolean; mask?: Tensor } = {}): Tensor {
  const q = x.matmul(w.qProj).add(w.qBias);
  const k = x.matmul(w.kProj).add(w.kBias);
  const v = x.matmul(w.vProj).add(w.vBias);
  return attention(q, k, v, options).output;
}
