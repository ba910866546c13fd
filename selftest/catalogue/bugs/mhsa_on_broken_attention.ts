/**
 * Attention in loops that read K as [d_k, n_k] (a reshape, not a transpose), and a correct
 * multi-head attention built on it: every multi-head test fails because of the attention function.
 */
import { Tensor } from '../../../lib/tensor';
import { mergeHeads, splitHeads, type Weights } from './base';
import { loopAttention } from './loops';

export { causalMask, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { keyOffset: (b, j, c, nK, dK) => b * nK * dK + c * nK + j });
}

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);
  const k = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);
  const v = splitHeads(x.matmul(w.vProj.transpose(0, 1)), numHeads);
  const heads = scaledDotProductAttention(q, k, v, mask);
  return mergeHeads(new Tensor(heads.data, heads.shape)).matmul(w.oProj.transpose(0, 1));
}
