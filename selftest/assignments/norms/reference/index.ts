/**
 * The model answer of the norms assignment. Never shipped to students.
 */
import { ShapeError } from '../lib/errors';
import { Tensor } from '../lib/tensor';

/** (x − mean) / √(biased variance + eps) · gamma + beta along the last dim. */
export function layerNorm(x: Tensor, gamma: Tensor, beta: Tensor, eps: number): Tensor {
  const centred = x.sub(x.mean(-1, true));
  const variance = centred.mul(centred).mean(-1, true);
  return centred.div(variance.add(eps).sqrt()).mul(gamma).add(beta);
}

/** Each row's k largest entries, largest first, ties to the lower index, and their indices. */
export function topK(x: Tensor, k: number): { values: Tensor; indices: Tensor } {
  const n = x.shape[x.ndim - 1];
  if (!Number.isInteger(k) || k < 0 || k > n) throw new ShapeError(`topK: k ${k} must be a whole number from 0 to ${n}, the size of the last dim of [${x.shape.join(', ')}]`);
  const rows = n === 0 ? 0 : x.size / n;
  const values = new Float64Array(rows * k);
  const indices = new Float64Array(rows * k);
  for (let r = 0; r < rows; r++) {
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => x.data[r * n + b] - x.data[r * n + a] || a - b);
    for (let j = 0; j < k; j++) {
      values[r * k + j] = x.data[r * n + order[j]];
      indices[r * k + j] = order[j];
    }
  }
  const shape = [...x.shape.slice(0, -1), k];
  return { values: new Tensor(values, shape), indices: new Tensor(indices, shape) };
}
