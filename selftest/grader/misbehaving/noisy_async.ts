/** Correct, but floods its output and leaves an unhandled rejection and a late throw behind. */
import type { Tensor } from '../../../lib/tensor';
import { softmax as correct } from './base';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number): Tensor {
  console.log('x'.repeat(10_000));
  void Promise.reject(new Error('nobody catches this'));
  setTimeout(() => {
    throw new Error('thrown later');
  }, 0);
  return correct(x, dim);
}
