/**
 * Decides that a query has no key to attend to from its first key alone: every row whose key 0 is
 * masked outputs zeros, though most such rows have other keys they may attend to.
 */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention, maskAllows } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  const out = loopAttention(Q, K, V, mask);
  if (!mask) return out;
  const batch = Q.shape.slice(0, -2);
  const [nQ] = Q.shape.slice(-2);
  const dV = V.shape[V.ndim - 1];
  for (let row = 0; row < out.data.length / dV; row++) {
    if (!maskAllows(mask, batch, Math.floor(row / nQ), row % nQ, 0)) out.data.fill(0, row * dV, (row + 1) * dV);
  }
  return out;
}
