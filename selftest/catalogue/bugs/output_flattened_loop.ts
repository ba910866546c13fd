/** Computes every batch entry right in its loops but returns the shape [entries, n_q, d_v]. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  const out = loopAttention(Q, K, V, mask);
  const [nQ, dV] = out.shape.slice(-2);
  return { shape: [out.data.length / (nQ * dV), nQ, dV], data: out.data };
}
