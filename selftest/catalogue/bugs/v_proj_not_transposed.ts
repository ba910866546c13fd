/** Projects the values with x vProj, not x vProjᵀ (the queries and keys right). */
import type { Tensor } from '../../../lib/tensor';
import { mergeHeads, scaledDotProductAttention, splitHeads, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);
  const k = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);
  const v = splitHeads(x.matmul(w.vProj), numHeads);
  return mergeHeads(scaledDotProductAttention(q, k, v, mask)).matmul(w.oProj.transpose(0, 1));
}
