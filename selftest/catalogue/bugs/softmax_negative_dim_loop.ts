/** Turns dim -1 into the last axis and uses any other dim as an index: dim -2 reads shape[-2], undefined. */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number) {
  const axis = dim === -1 ? x.shape.length - 1 : dim;
  const n = x.shape[axis];
  const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const outer = x.size / (n * inner);
  const data = new Float64Array(x.size);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const at = (j: number) => (o * n + j) * inner + i;
      let max = -Infinity;
      for (let j = 0; j < n; j++) max = Math.max(max, x.data[at(j)]);
      let total = 0;
      for (let j = 0; j < n; j++) total += Math.exp(x.data[at(j)] - max);
      for (let j = 0; j < n; j++) data[at(j)] = Math.exp(x.data[at(j)] - max) / total;
    }
  }
  return { shape: [...x.shape], data };
}
