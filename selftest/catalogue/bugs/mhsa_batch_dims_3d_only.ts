/** Reads batch, seq and dModel as x.shape[0..2]: extra batch dims break. */
import type { Tensor } from '../../../lib/tensor';
import { scaledDotProductAttention, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const [batch, seq, dModel] = x.shape;
  const dHead = dModel / numHeads;
  const split = (t: Tensor) => t.reshape(batch, seq, numHeads, dHead).transpose(1, 2);
  const q = split(x.matmul(w.qProj.transpose(0, 1)));
  const k = split(x.matmul(w.kProj.transpose(0, 1)));
  const v = split(x.matmul(w.vProj.transpose(0, 1)));
  const heads = scaledDotProductAttention(q, k, v, mask);
  return heads.transpose(1, 2).reshape(batch, seq, dModel).matmul(w.oProj.transpose(0, 1));
}
