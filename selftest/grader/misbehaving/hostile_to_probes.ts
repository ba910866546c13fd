/**
 * Forgets the scale like the catalogue's scale_missing, and turns on the probes: given a V that
 * starts with the identity (what a probe for the probabilities sends) it hangs when Q is 3-D and
 * throws otherwise. The graded probabilities case sends [identity | more columns] too, so that
 * case times out on its own.
 */
import type { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

function startsWithIdentity(V: Tensor): boolean {
  const [n, cols] = V.shape.slice(-2);
  if (cols < n) return false;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (V.data[i * cols + j] !== (i === j ? 1 : 0)) return false;
  return true;
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  if (startsWithIdentity(V)) {
    if (Q.ndim === 3) for (;;) if (Q.size < 0) break;
    throw new Error('no probing me');
  }
  let scores = Q.matmul(K.transpose(-2, -1));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}
