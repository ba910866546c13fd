/** A right softmax computed in the input's own storage, which it returns: the caller's x is overwritten. */
import type { Tensor } from '../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number): Tensor {
  const axis = dim < 0 ? dim + x.ndim : dim;
  const size = x.shape[axis];
  const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const outer = x.data.length / (size * inner);
  const data = x.data;
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const at = (k: number) => (o * size + k) * inner + i;
      let max = -Infinity;
      for (let k = 0; k < size; k++) max = Math.max(max, data[at(k)]);
      let sum = 0;
      for (let k = 0; k < size; k++) sum += data[at(k)] = Math.exp(data[at(k)] - max);
      for (let k = 0; k < size; k++) data[at(k)] /= sum;
    }
  }
  return x;
}
