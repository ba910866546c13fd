/**
 * The similarity corpus's "reference": the model answer's four core functions (reference/index.ts
 * before the optional parts), fixed text that reference_disguised.ts disguises by hand.
 */
import { ShapeError } from '../../../lib/errors';
import { Tensor } from '../../../lib/tensor';

export interface AttentionWeights {
  qProj: Tensor;
  kProj: Tensor;
  vProj: Tensor;
  oProj: Tensor;
}

/** softmax(x) along `dim`; the max is subtracted first so exp never overflows. */
export function softmax(x: Tensor, dim: number): Tensor {
  const shifted = x.sub(x.max(dim, true));
  const e = shifted.exp();
  return e.div(e.sum(dim, true));
}

/**
 * softmax(Q Kᵀ / √d_k) V for Q [...batch, queries, dK], K [...batch, keys, dK], V [...batch, keys, dV].
 * mask (boolean, broadcastable to [...batch, queries, keys]): 0 = must not attend.
 */
export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  const dK = Q.shape[Q.ndim - 1];
  const scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(dK));
  if (mask === undefined) return softmax(scores, -1).matmul(V);
  const blocked = mask.eq(0);
  // −∞ gives masked keys exactly 0; a row with every key masked becomes 0/0 = NaN, and the second
  // maskedFill turns that whole row into zeros, as the contract requires.
  const weights = softmax(scores.maskedFill(blocked, -Infinity), -1).maskedFill(blocked, 0);
  return weights.matmul(V);
}

/** Boolean [seqLen, seqLen]: query i may attend to key j when j ≤ i. */
export function causalMask(seqLen: number): Tensor {
  const query = Tensor.arange(seqLen).reshape(seqLen, 1);
  const key = Tensor.arange(seqLen).reshape(1, seqLen);
  return key.le(query);
}

/**
 * Multi-head self-attention without bias: x [...batch, seq, dModel]; every weight [dModel, dModel]
 * in (out, in) layout like nn.Linear, so a projection is x Wᵀ. Heads take contiguous feature blocks.
 */
export function multiHeadSelfAttention(
  x: Tensor,
  weights: AttentionWeights,
  numHeads: number,
  mask?: Tensor,
): Tensor {
  const dModel = x.shape[x.ndim - 1];
  const seq = x.shape[x.ndim - 2];
  const batch = x.shape.slice(0, -2);
  if (!Number.isInteger(numHeads) || numHeads < 1 || dModel % numHeads !== 0) {
    throw new ShapeError(`multiHeadSelfAttention: numHeads ${numHeads} must divide dModel ${dModel}`);
  }
  const dHead = dModel / numHeads;
  // [...batch, seq, dModel] → [...batch, heads, seq, dHead]
  const splitHeads = (t: Tensor) => t.reshape(...batch, seq, numHeads, dHead).transpose(-3, -2);
  const project = (t: Tensor, w: Tensor) => t.matmul(w.transpose(-2, -1));

  const q = splitHeads(project(x, weights.qProj));
  const k = splitHeads(project(x, weights.kProj));
  const v = splitHeads(project(x, weights.vProj));
  const heads = scaledDotProductAttention(q, k, v, mask);
  const merged = heads.transpose(-3, -2).reshape(...batch, seq, dModel);
  return project(merged, weights.oProj);
}
