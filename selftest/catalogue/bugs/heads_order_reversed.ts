/** Concatenates the heads last to first before the output projection. */
import { Tensor } from '../../../lib/tensor';
import { mergeHeads, scaledDotProductAttention, splitHeads, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);
  const k = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);
  const v = splitHeads(x.matmul(w.vProj.transpose(0, 1)), numHeads);
  const heads = scaledDotProductAttention(q, k, v, mask);
  const [h, seq, dHead] = heads.shape.slice(-3);
  const per = seq * dHead;
  const reversed = new Float64Array(heads.size);
  // Head i of each batch entry is written to slot h - 1 - i.
  for (let start = 0; start < heads.size; start += h * per) {
    for (let i = 0; i < h; i++) reversed.set(heads.data.subarray(start + i * per, start + (i + 1) * per), start + (h - 1 - i) * per);
  }
  return mergeHeads(new Tensor(reversed, heads.shape)).matmul(w.oProj.transpose(0, 1));
}
