/**
 * Copies the reference with require() and import() calls inside function bodies, where they run
 * only when called. The paths are string literals, so the grader must find them in the source and
 * refuse the submission before running any of it: every test refused, no points.
 */
import type { Tensor } from '../../lib/tensor';

export { causalMask, multiHeadSelfAttention } from './base';

export function softmax(x: Tensor, dim: number): unknown {
  return require('../../../reference').softmax(x, dim);
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Promise<unknown> {
  return import('../../reference/index.js').then((reference) => reference.scaledDotProductAttention(Q, K, V, mask));
}
