/** Splits heads with a plain reshape to [..., numHeads, seq, dHead] (no transpose), and merges the same way. */
import type { Tensor } from '../../../lib/tensor';
import { scaledDotProductAttention, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const [seq, dModel] = x.shape.slice(-2);
  const lead = x.shape.slice(0, -2);
  const split = (t: Tensor) => t.reshape(...lead, numHeads, seq, dModel / numHeads);
  const q = split(x.matmul(w.qProj.transpose(0, 1)));
  const k = split(x.matmul(w.kProj.transpose(0, 1)));
  const v = split(x.matmul(w.vProj.transpose(0, 1)));
  return scaledDotProductAttention(q, k, v, mask).reshape(...lead, seq, dModel).matmul(w.oProj.transpose(0, 1));
}
