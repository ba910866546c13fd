/** Takes exp of the inputs as they are, in loops: exp(1000) is Infinity. */
import { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

/** The slices along `dim`: for each, the flat offsets of its elements. */
function slices(shape: readonly number[], dim: number): number[][] {
  const d = dim < 0 ? dim + shape.length : dim;
  const inner = shape.slice(d + 1).reduce((a, b) => a * b, 1);
  const outer = shape.slice(0, d).reduce((a, b) => a * b, 1);
  const out: number[][] = [];
  for (let o = 0; o < outer; o++) for (let i = 0; i < inner; i++) out.push(Array.from({ length: shape[d] }, (_, k) => (o * shape[d] + k) * inner + i));
  return out;
}

export function softmax(x: Tensor, dim: number) {
  const data = new Float64Array(x.size);
  for (const slice of slices(x.shape, dim)) {
    const total = slice.reduce((a, k) => a + Math.exp(x.data[k]), 0);
    for (const k of slice) data[k] = Math.exp(x.data[k]) / total;
  }
  return { shape: [...x.shape], data };
}
