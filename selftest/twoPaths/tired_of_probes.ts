/**
 * Attention without its scale, which throws once it has been called more than 12 times. The graded
 * calls are 10, so every test fails on its values, diagnosed as the missing scale; when the
 * diagnosis's probes shared its state (npm test once probed the graded instance), the later tests
 * threw instead.
 */
import type { Tensor } from '../../lib/tensor';
import { scaledDotProductAttention as right } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

let calls = 0;

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  if (++calls > 12) throw new Error('called too often');
  return right(Q.mul(Math.sqrt(Q.shape[Q.ndim - 1])), K, V, mask);
}
