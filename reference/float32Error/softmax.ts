/**
 * The float32 error bound of softmax(x, dim), element by element (docs/float32-error.md): how far
 * a correct float32 computation in any order (natural or base-2 exp, log-sum-exp, online or tiled)
 * may land from the float64 value on these inputs.
 */
import { gamma, SECOND_ORDER, size, U, type Arr } from './terms';

/**
 * One slice's terms. ε_j bounds the error of each exponent argument (natural-log units):
 * 2u|x_j| (the input read as float32, log₂e folded in), 4u|t_j| for t_j = x_j − max (the
 * subtraction, the scale and log₂e constants, a multiply after it), 2u for exp itself.
 * δ bounds what every weight shares: the max or log-sum-exp rounded and not renormalised away,
 * the row sum in any order with a rescale per term (online), the division and the stored weight.
 */
export function slice(x: (j: number) => number, n: number): { p: Float64Array; eps: Float64Array; shared: number } {
  let max = -Infinity;
  for (let j = 0; j < n; j++) max = Math.max(max, x(j));
  const p = new Float64Array(n);
  const eps = new Float64Array(n);
  let sum = 0;
  for (let j = 0; j < n; j++) {
    const t = x(j) - max;
    p[j] = Math.exp(t);
    sum += p[j];
    eps[j] = U * (2 * Math.abs(x(j)) + 4 * Math.abs(t) + 2);
  }
  for (let j = 0; j < n; j++) p[j] /= sum;
  const shared = U * (Math.abs(max) + Math.log(n) + 2) + gamma(2 * n + 2);
  return { p, eps, shared };
}

/** softmax(x, dim)'s bound: p_j·((1 − p_j)ε_j + Σ_{k≠j} p_k ε_k + δ) + u·p_j (the expected value stored as float32). */
export function softmaxBound(x: Arr, dim: number): Float64Array {
  const axis = dim < 0 ? dim + x.shape.length : dim;
  const n = x.shape[axis];
  const inner = size(x.shape.slice(axis + 1));
  const outer = n * inner === 0 ? 0 : x.data.length / (n * inner);
  const bound = new Float64Array(x.data.length);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const at = (j: number) => (o * n + j) * inner + i;
      const { p, eps, shared } = slice((j) => x.data[at(j)], n);
      let mean = 0;
      for (let j = 0; j < n; j++) mean += p[j] * eps[j];
      for (let j = 0; j < n; j++) {
        const spread = (1 - p[j]) * eps[j] + mean - p[j] * eps[j];
        bound[at(j)] = SECOND_ORDER * p[j] * (spread + shared + U);
      }
    }
  }
  return bound;
}
