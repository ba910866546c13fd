/**
 * Projects each head's output with that head's own diagonal block of oProj before concatenating, as
 * if every head had an output projection of its own: the blocks of oProj off the diagonal, which mix
 * the heads, are never used.
 */
import { Tensor } from '../../../lib/tensor';
import { mergeHeads, scaledDotProductAttention, splitHeads, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);
  const k = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);
  const v = splitHeads(x.matmul(w.vProj.transpose(0, 1)), numHeads);
  const heads = scaledDotProductAttention(q, k, v, mask);
  const dModel = w.oProj.shape[0];
  const dHead = dModel / numHeads;
  // The block-diagonal part of oProj: head h's rows and columns h·dHead … (h+1)·dHead − 1.
  const own = new Float64Array(dModel * dModel);
  for (let h = 0; h < numHeads; h++) {
    for (let r = h * dHead; r < (h + 1) * dHead; r++) for (let c = h * dHead; c < (h + 1) * dHead; c++) own[r * dModel + c] = w.oProj.data[r * dModel + c];
  }
  return mergeHeads(heads).matmul(new Tensor(own, [dModel, dModel]).transpose(0, 1));
}
