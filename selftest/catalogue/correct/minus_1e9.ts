/**
 * Correct, with tensor methods in float64 and −1e9 masking (as many tutorials do): exp(−1e9 − max)
 * is exactly 0, and rows with no allowed key are zeroed explicitly. It must get full marks.
 */
import { Tensor } from '../../../lib/tensor';

export function softmax(x: Tensor, dim: number): Tensor {
  const e = x.astype('float64').sub(x.max(dim, true)).exp();
  return e.div(e.sum(dim, true));
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const dK = Q.shape[Q.ndim - 1];
  const scores = Q.astype('float64').matmul(K.astype('float64').transpose(-1, -2)).div(Math.sqrt(dK));
  if (!mask) return softmax(scores, -1).matmul(V);
  const probs = softmax(Tensor.where(mask, scores, -1e9), -1);
  const anyAllowed = mask.astype('float64').sum(-1, true).gt(0);
  return Tensor.where(anyAllowed, probs, 0).matmul(V.astype('float64'));
}

export function causalMask(seqLen: number): Tensor {
  const rows = Tensor.arange(seqLen).reshape(-1, 1);
  const cols = Tensor.arange(seqLen).reshape(1, -1);
  return cols.sub(rows).le(0);
}

export function multiHeadSelfAttention(
  x: Tensor,
  w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  numHeads: number,
  mask?: Tensor,
): Tensor {
  const shape = x.shape;
  const [seq, dModel] = shape.slice(-2);
  const flat = x.astype('float64').reshape(-1, seq, dModel);
  const dHead = dModel / numHeads;
  const proj = (p: Tensor) => flat.matmul(p.astype('float64').permute(1, 0)).reshape(-1, seq, numHeads, dHead).permute(0, 2, 1, 3);
  const out = scaledDotProductAttention(proj(w.qProj), proj(w.kProj), proj(w.vProj), mask);
  return out.permute(0, 2, 1, 3).reshape(-1, seq, dModel).matmul(w.oProj.astype('float64').permute(1, 0)).reshape(...shape);
}
