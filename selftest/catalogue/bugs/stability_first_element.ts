/** Subtracts each slice's first element, not its max: overflows once a later element is far larger. */
import { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(x: Tensor, dim: number): Tensor {
  const d = dim < 0 ? dim + x.ndim : dim;
  const n = x.shape[d];
  const inner = x.shape.slice(d + 1).reduce((a, b) => a * b, 1);
  const outer = x.size / (n * inner);
  const out = new Float64Array(x.size);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const at = (j: number) => (o * n + j) * inner + i;
      const first = x.data[at(0)];
      let sum = 0;
      for (let j = 0; j < n; j++) sum += out[at(j)] = Math.exp(x.data[at(j)] - first);
      for (let j = 0; j < n; j++) out[at(j)] /= sum;
    }
  }
  return new Tensor(out, x.shape);
}
