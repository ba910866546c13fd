/**
 * Walks the batch dims last to first (the inner dim in the outer loop) and writes each entry's
 * attention at a running counter: with two or more batch dims, entry [a, b] is written where
 * entry [b, a] belongs (the batch dims' order permuted).
 */
import { Tensor } from '../../../lib/tensor';
import { scaledDotProductAttention as attend } from './base';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

/** Entry `index` (per batch dim) of a [...batch, rows, cols] tensor, with batch dims broadcast where t has size 1 or fewer dims. */
function entryOf(t: Tensor, index: number[]): Tensor {
  const own = index.slice(index.length - (t.ndim - 2));
  let offset = 0;
  for (let d = 0; d < own.length; d++) offset = offset * t.shape[d] + (t.shape[d] === 1 ? 0 : own[d]);
  const [rows, cols] = t.shape.slice(-2);
  return new Tensor(t.data.slice(offset * rows * cols, (offset + 1) * rows * cols), [rows, cols]);
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const batch = Q.shape.slice(0, -2);
  const [nQ] = Q.shape.slice(-2);
  const dV = V.shape[V.ndim - 1];
  const entries = batch.reduce((a, b) => a * b, 1);
  const out = new Float64Array(entries * nQ * dV);
  let written = 0;
  const visit = (dim: number, index: number[]) => {
    if (dim < 0) {
      const m = mask && (mask.ndim > 2 ? entryOf(mask, index) : mask);
      out.set(attend(entryOf(Q, index), entryOf(K, index), entryOf(V, index), m).data, written++ * nQ * dV);
      return;
    }
    for (let i = 0; i < batch[dim]; i++) visit(dim - 1, Object.assign([...index], { [dim]: i }));
  };
  visit(batch.length - 1, batch.map(() => 0));
  return new Tensor(out, [...batch, nQ, dV]);
}
