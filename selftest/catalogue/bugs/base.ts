/**
 * A correct solution written with tensor methods, like seed 001's notebook (−∞ masking, then NaN
 * rows zeroed). Every mutant in this folder re-exports it and replaces one function, so a bug
 * in one function cannot leak into the others' tests.
 */
import { Tensor } from '../../../lib/tensor';

export function softmax(x: Tensor, dim: number): Tensor {
  const e = x.sub(x.max(dim, true)).exp();
  return e.div(e.sum(dim, true));
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).mul(Q.shape[Q.ndim - 1] ** -0.5);
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1);
  return probs.maskedFill(probs.isNaN(), 0).matmul(V);
}

export function causalMask(seqLen: number): Tensor {
  return Tensor.arange(seqLen).unsqueeze(1).ge(Tensor.arange(seqLen).unsqueeze(0));
}

export interface Weights {
  qProj: Tensor;
  kProj: Tensor;
  vProj: Tensor;
  oProj: Tensor;
}

export function splitHeads(t: Tensor, numHeads: number): Tensor {
  const [seq, dModel] = t.shape.slice(-2);
  return t.reshape(...t.shape.slice(0, -2), seq, numHeads, dModel / numHeads).transpose(-3, -2);
}

export function mergeHeads(t: Tensor): Tensor {
  const [numHeads, seq, dHead] = t.shape.slice(-3);
  return t.transpose(-3, -2).reshape(...t.shape.slice(0, -3), seq, numHeads * dHead);
}

export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {
  const q = splitHeads(x.matmul(w.qProj.transpose(0, 1)), numHeads);
  const k = splitHeads(x.matmul(w.kProj.transpose(0, 1)), numHeads);
  const v = splitHeads(x.matmul(w.vProj.transpose(0, 1)), numHeads);
  return mergeHeads(scaledDotProductAttention(q, k, v, mask)).matmul(w.oProj.transpose(0, 1));
}
