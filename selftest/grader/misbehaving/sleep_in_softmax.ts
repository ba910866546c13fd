/** Softmax sleeps forever without spending CPU (Atomics.wait); the other functions are correct. */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, _dim: number): Tensor {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  return x;
}
