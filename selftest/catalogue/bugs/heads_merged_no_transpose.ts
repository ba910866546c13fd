/** Merges the heads [..., numHeads, seq, dHead] with a plain reshape to [..., seq, dModel], without transposing them back. */
import type { Tensor } from '../../../lib/tensor';
import { scaledDotProductAttention, splitHeads, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);
  const k = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);
  const v = splitHeads(x.matmul(w.vProj.transpose(0, 1)), numHeads);
  const heads = scaledDotProductAttention(q, k, v, mask);
  return heads.reshape(...x.shape).matmul(w.oProj.transpose(0, 1));
}
