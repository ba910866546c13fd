/**
 * Attention that forgets its scale after its eighth call, counted by a helper module of its own
 * (counter.ts). Its last two visible tests fail in both paths, and their diagnosis probes an
 * instance of the submission of its own (a second instance of every file), where the
 * count starts again: the same probes get the same answers in both paths.
 */
import type { Tensor } from '../../lib/tensor';
import { scaledDotProductAttention as right } from './base';
import { tick } from './counter';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const dK = Q.shape[Q.ndim - 1];
  return tick() > 8 ? right(Q.mul(Math.sqrt(dK)), K, V, mask) : right(Q, K, V, mask);
}
