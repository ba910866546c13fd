/**
 * Splits the heads by transposing the wrong pair of axes ([..., seq, numHeads, dHead] →
 * [..., seq, dHead, numHeads]), and merges them back the same way: each position attends over its
 * own features, not over the positions (a mask [seq, seq] then fits no scores, which throws).
 */
import type { Tensor } from '../../../lib/tensor';
import { scaledDotProductAttention, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const [seq, dModel] = x.shape.slice(-2);
  const lead = x.shape.slice(0, -2);
  const split = (p: Tensor) => x.matmul(p.transpose(0, 1)).reshape(...lead, seq, numHeads, dModel / numHeads).transpose(-2, -1);
  const heads = scaledDotProductAttention(split(w.qProj), split(w.kProj), split(w.vProj), mask);
  return heads.transpose(-2, -1).reshape(...lead, seq, dModel).matmul(w.oProj.transpose(0, 1));
}
