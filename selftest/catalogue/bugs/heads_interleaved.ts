/** Splits heads as [seq, dHead, heads]: head h gets every numHeads-th feature, not a contiguous block. */
import type { Tensor } from '../../../lib/tensor';
import { scaledDotProductAttention, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const split = (t: Tensor) => {
    const [seq, dModel] = t.shape.slice(-2);
    return t.reshape(...t.shape.slice(0, -2), seq, dModel / numHeads, numHeads).transpose(-1, -2).transpose(-3, -2);
  };
  const merge = (t: Tensor) => {
    const [heads, seq, dHead] = t.shape.slice(-3);
    return t.transpose(-3, -2).transpose(-1, -2).reshape(...t.shape.slice(0, -3), seq, heads * dHead);
  };
  const q = split(x.matmul(w.qProj.transpose(0, 1)));
  const k = split(x.matmul(w.kProj.transpose(0, 1)));
  const v = split(x.matmul(w.vProj.transpose(0, 1)));
  return merge(scaledDotProductAttention(q, k, v, mask)).matmul(w.oProj.transpose(0, 1));
}
