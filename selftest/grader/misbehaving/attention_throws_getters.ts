/**
 * scaledDotProductAttention throws an Error whose `name` getter throws in turn; the multi-head
 * attention calls it, so every multi-head test fails, and its diagnosis asks which attention tests
 * fail. Under `npm test -- -t multihead` none of them ran, so npm test runs them itself: what they
 * throw must be read as the grader's child reads it, not by the harness outside any guard.
 */
import type { Tensor } from '../../../lib/tensor';
import { mergeHeads, splitHeads, type Weights } from './base';

export { causalMask, softmax } from './base';

export function scaledDotProductAttention(_Q: Tensor, _K: Tensor, _V: Tensor, _mask?: Tensor): Tensor {
  const err = new Error('attention is not done yet');
  Object.defineProperty(err, 'name', {
    get(): string {
      throw new Error('a name that cannot be read');
    },
  });
  throw err;
}

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const [q, k, v] = [w.qProj, w.kProj, w.vProj].map((p) => splitHeads(x.matmul(p.transpose(0, 1)), numHeads));
  return mergeHeads(scaledDotProductAttention(q, k, v, mask)).matmul(w.oProj.transpose(0, 1));
}
