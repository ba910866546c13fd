/** Projects the values with kProj (a copy-paste of the line above): vProj is never used. */
import type { Tensor } from '../../../lib/tensor';
import { mergeHeads, scaledDotProductAttention, splitHeads, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);
  const k = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);
  const v = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);
  return mergeHeads(scaledDotProductAttention(q, k, v, mask)).matmul(w.oProj.transpose(0, 1));
}
