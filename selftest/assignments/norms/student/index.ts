/**
 * The norms assignment: implement the two functions below. This file (and any helper file you add
 * in this folder) is your submission.
 *
 * Tensors (`../lib/tensor`) work like a small torch: row-major `data` and `shape`, with mean/sum/max
 * along a dim, elementwise arithmetic with broadcasting, sqrt. You may also loop over `data` and
 * `shape` yourself, and return any `{ shape: number[], data }` in row-major order (`TensorLike`).
 */
import { NotImplementedError } from '../lib/errors';
import type { Tensor, TensorLike } from '../lib/tensor';

/**
 * Layer normalisation over the last dim, as PyTorch's layer_norm: for each row of x [...batch, d],
 * (x − mean) / √(variance + eps) · gamma + beta, where the variance is the biased one (divide by d)
 * and gamma, beta are [d]. eps keeps a row of equal values finite: it goes inside the root.
 * Returns x's shape.
 */
export function layerNorm(x: Tensor, gamma: Tensor, beta: Tensor, eps: number): TensorLike {
  throw new NotImplementedError('layerNorm');
}

/**
 * The k largest entries of each row (last dim) of x [...batch, n], largest first, and where they
 * were: `values` and `indices`, both [...batch, k]. Of equal entries the one with the lower index
 * comes first. Indices are whole numbers (an Int32Array, a Float64Array or a number[] of them).
 */
export function topK(x: Tensor, k: number): { values: TensorLike; indices: TensorLike } {
  throw new NotImplementedError('topK');
}
