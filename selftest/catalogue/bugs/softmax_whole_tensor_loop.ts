/** Subtracts each slice's max but divides by the sum of exp over the whole tensor. */
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
  let total = 0;
  const all = slices(x.shape, dim);
  for (const slice of all) {
    const max = Math.max(...slice.map((k) => x.data[k]));
    for (const k of slice) total += (data[k] = Math.exp(x.data[k] - max));
  }
  for (let k = 0; k < data.length; k++) data[k] /= total;
  return { shape: [...x.shape], data };
}
