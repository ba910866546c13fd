/**
 * Forgets the scale like the catalogue's scale_missing, and turns on the report's probes: given
 * V = the identity (what a probe sends) it hangs when Q is 3-D and throws otherwise. The graded
 * probabilities case sends an identity too, so that case times out on its own.
 */
import type { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

function isIdentity(V: Tensor): boolean {
  const n = V.shape[V.ndim - 1];
  if (V.shape[V.ndim - 2] !== n) return false;
  for (let i = 0; i < n * n; i++) if (V.data[i] !== (i % (n + 1) === 0 ? 1 : 0)) return false;
  return true;
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  if (isIdentity(V)) {
    if (Q.ndim === 3) for (;;) if (Q.size < 0) break;
    throw new Error('no probing me');
  }
  let scores = Q.matmul(K.transpose(-2, -1));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}
