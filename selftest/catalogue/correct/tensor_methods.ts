/**
 * Correct, with the tensor methods and a softmax of its own, −∞ masking and the NaN rows cleared
 * after. It must get full marks. The `// audit:` lines name the part of attention the lines below
 * them compute (a line's own `// audit:` names its own part): the truth the diagnosis audit holds a
 * claim against when it mutates them (npm run audit:diagnosis).
 */
import { Tensor } from '../../../lib/tensor';

export function softmax(x: Tensor, dim: number): Tensor {
  // audit: max
  const shifted = x.sub(x.max(dim, true));
  // audit: exp
  const e = shifted.exp();
  // audit: sum
  const total = e.sum(dim, true);
  // audit: normalise
  return e.div(total);
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  // audit: shape, scale
  const dK = Q.shape[Q.ndim - 1];
  // audit: scores
  const raw = Q.matmul(K.transpose(-2, -1));
  // audit: scale
  let scores = raw.mul(1 / Math.sqrt(dK));
  // audit: mask
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const probs = softmax(scores, -1); // audit: axis
  // audit: empty
  const cleared = probs.maskedFill(probs.isNaN(), 0);
  // audit: values
  return cleared.matmul(V);
}

export function causalMask(seqLen: number): Tensor {
  // audit: causal
  const rows = Tensor.arange(seqLen).unsqueeze(1);
  const cols = Tensor.arange(seqLen).unsqueeze(0);
  return cols.le(rows);
}

export function multiHeadSelfAttention(
  x: Tensor,
  w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  numHeads: number,
  mask?: Tensor,
): Tensor {
  // audit: mhsa_shape
  const [seq, dModel] = x.shape.slice(-2);
  const lead = x.shape.slice(0, -2);
  const dHead = dModel / numHeads;
  // audit: projection
  const project = (p: Tensor) => x.matmul(p.transpose(-2, -1));
  // audit: split
  const split = (t: Tensor) => t.reshape(...lead, seq, numHeads, dHead).transpose(-3, -2);
  const heads = scaledDotProductAttention(split(project(w.qProj)), split(project(w.kProj)), split(project(w.vProj)), mask); // audit: projection, split, heads
  // audit: merge
  const merged = heads.transpose(-3, -2).reshape(...lead, seq, dModel);
  // audit: oproj
  return merged.matmul(w.oProj.transpose(-2, -1));
}
