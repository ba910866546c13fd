/**
 * state_in_helper's attention with its count kept on globalThis, in the realm, not in a module: a
 * new instance of the submission does not start it again. Both paths probe a new instance in the
 * realm the graded calls ran in (npm test beside its graded instance, the grader in the child that
 * graded the visible cases), so the probes meet the same count and say the same. When the grader
 * probed in a new child, its count started again there, and the two paths said different things.
 */
import type { Tensor } from '../../lib/tensor';
import { scaledDotProductAttention as right } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

const realm = globalThis as { attentionCalls?: number };

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  realm.attentionCalls = (realm.attentionCalls ?? 0) + 1;
  const dK = Q.shape[Q.ndim - 1];
  return realm.attentionCalls > 8 ? right(Q.mul(Math.sqrt(dK)), K, V, mask) : right(Q, K, V, mask);
}
