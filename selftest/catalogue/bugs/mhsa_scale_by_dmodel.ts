/** Attends inside multi-head attention with scores divided by √dModel, the model's width, not each head's √dHead. */
import { Tensor } from '../../../lib/tensor';
import { mergeHeads, softmax, splitHeads, type Weights } from './base';

export { causalMask, scaledDotProductAttention, softmax } from './base';

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const dModel = x.shape[x.ndim - 1];
  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);
  const k = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);
  const v = splitHeads(x.matmul(w.vProj.transpose(0, 1)), numHeads);
  let scores = q.matmul(k.transpose(-2, -1)).div(Math.sqrt(dModel));
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const p = softmax(scores, -1);
  return mergeHeads(p.maskedFill(p.isNaN(), 0).matmul(v)).matmul(w.oProj.transpose(0, 1));
}
