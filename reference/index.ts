/**
 * The model answer. Written with the tensor methods, line for line like the PyTorch in the course
 * material, so instructors can read it against the notebooks. Never shipped to students.
 */
import { ShapeError } from '../lib/errors';
import { Tensor } from '../lib/tensor';

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
 * softmax(Q Kᵀ / √d_k) for Q [...batch, queries, dK], K [...batch, keys, dK]: the attention
 * probabilities [...batch, queries, keys]. mask (boolean, broadcastable to them): 0 = must not attend.
 */
function probabilities(Q: Tensor, K: Tensor, mask?: Tensor): Tensor {
  const dK = Q.shape[Q.ndim - 1];
  const scores = Q.matmul(K.transpose(-2, -1)).div(Math.sqrt(dK));
  if (mask === undefined) return softmax(scores, -1);
  const blocked = mask.eq(0);
  // −∞ gives masked keys exactly 0; a row with every key masked becomes 0/0 = NaN, and the second
  // maskedFill turns that whole row into zeros, as the contract requires.
  return softmax(scores.maskedFill(blocked, -Infinity), -1).maskedFill(blocked, 0);
}

/**
 * softmax(Q Kᵀ / √d_k) V for Q [...batch, queries, dK], K [...batch, keys, dK], V [...batch, keys, dV].
 * mask (boolean, broadcastable to [...batch, queries, keys]): 0 = must not attend.
 */
export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  return probabilities(Q, K, mask).matmul(V);
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

/** attention's options, as Project 4's `attention(Q, K, V, mask, scale, return_weights)` takes them. */
export interface AttentionOptions {
  mask?: Tensor;
  scale?: boolean;
  returnWeights?: boolean;
}

/**
 * Project 4's attention: softmax(Q Kᵀ / √d_k) V (Problem 2's softmax(Q Kᵀ) V with `scale: false`),
 * and the weights it multiplies V with, [...batch, queries, keys], unless `returnWeights` is false.
 * Masked keys weigh exactly 0; a query whose keys are all masked has zero weights and outputs zeros.
 */
export function attention(Q: Tensor, K: Tensor, V: Tensor, { mask, scale = true, returnWeights = true }: AttentionOptions = {}): { output: Tensor; weights?: Tensor } {
  const scores = Q.matmul(K.transpose(-2, -1));
  const scaled = scale ? scores.div(Math.sqrt(Q.shape[Q.ndim - 1])) : scores;
  const blocked = mask?.eq(0);
  // As in scaledDotProductAttention: −∞ for masked keys, and a fully masked row's NaN turned to zeros.
  const weights = blocked ? softmax(scaled.maskedFill(blocked, -Infinity), -1).maskedFill(blocked, 0) : softmax(scaled, -1);
  const output = weights.matmul(V);
  return returnWeights ? { output, weights } : { output };
}

/** nn.Linear(n_embd, n_embd) with its bias, for single-head attention's three projections (Problems 2 and 3). */
export interface SingleHeadWeights {
  qProj: Tensor;
  qBias: Tensor;
  kProj: Tensor;
  kBias: Tensor;
  vProj: Tensor;
  vBias: Tensor;
}

/** Multi-head attention's four projections, each nn.Linear(dModel, dModel) with its bias (Project 4). */
export interface BiasedAttentionWeights extends SingleHeadWeights {
  oProj: Tensor;
  oBias: Tensor;
}

/** y = x Wᵀ + b, as nn.Linear: W [out, in], b [out]. */
const linear = (x: Tensor, w: Tensor, b: Tensor) => x.matmul(w.transpose(-2, -1)).add(b);

/**
 * Problems 2 and 3: x [...batch, seq, dModel] projected to Q, K, V by biased linear layers, then
 * attention over the whole of dModel (one head: d_k = dModel), scaled unless `scale` is false,
 * with an optional mask; no output projection. Returns [...batch, seq, dModel].
 */
export function singleHeadAttention(x: Tensor, weights: SingleHeadWeights, { scale = true, mask }: { scale?: boolean; mask?: Tensor } = {}): Tensor {
  const q = linear(x, weights.qProj, weights.qBias);
  const k = linear(x, weights.kProj, weights.kBias);
  const v = linear(x, weights.vProj, weights.vBias);
  return attention(q, k, v, { mask, scale }).output;
}

/**
 * Project 4's multi-head attention: biased projections, heads of contiguous feature blocks,
 * attention per head (scaled by √dHead) with `mask` for every head, the heads concatenated in order
 * and the biased output projection. Returns the output [...batch, seq, dModel] and every head's
 * weights [...batch, numHeads, seq, seq].
 */
export function multiHeadAttention(x: Tensor, weights: BiasedAttentionWeights, numHeads: number, { mask }: { mask?: Tensor } = {}): { output: Tensor; weights: Tensor } {
  const dModel = x.shape[x.ndim - 1];
  const seq = x.shape[x.ndim - 2];
  const batch = x.shape.slice(0, -2);
  if (!Number.isInteger(numHeads) || numHeads < 1 || dModel % numHeads !== 0) {
    throw new ShapeError(`multiHeadAttention: numHeads ${numHeads} must divide dModel ${dModel}`);
  }
  const dHead = dModel / numHeads;
  const splitHeads = (t: Tensor) => t.reshape(...batch, seq, numHeads, dHead).transpose(-3, -2);
  const q = splitHeads(linear(x, weights.qProj, weights.qBias));
  const k = splitHeads(linear(x, weights.kProj, weights.kBias));
  const v = splitHeads(linear(x, weights.vProj, weights.vBias));
  const heads = attention(q, k, v, { mask });
  const merged = heads.output.transpose(-3, -2).reshape(...batch, seq, dModel);
  return { output: linear(merged, weights.oProj, weights.oBias), weights: heads.weights! };
}

/**
 * The gradients part. y = softmax(x) along `dim`, dy = ∂L/∂y → ∂L/∂x = y ⊙ (dy − Σ(dy ⊙ y) along
 * dim): the Jacobian diag(y) − y yᵀ applied to dy. The subtracted sum is why shifting x by a
 * constant along dim moves no gradient.
 */
export function softmaxBackward(y: Tensor, dy: Tensor, dim: number): Tensor {
  return y.mul(dy.sub(dy.mul(y).sum(dim, true)));
}

/**
 * The gradients of L = Σ dOut ⊙ softmax(Q Kᵀ / √d_k) V with respect to Q, K and V (their shapes),
 * with P the masked probabilities:
 *   dV = Pᵀ dOut,  dP = dOut Vᵀ,  dS = softmaxBackward(P, dP, -1),  dQ = dS K / √d_k,  dK = dSᵀ Q / √d_k.
 * A masked position has P = 0, so dS = 0 there: it passes no gradient, and a fully masked query
 * passes none at all.
 */
export function scaledDotProductAttentionBackward(
  Q: Tensor, K: Tensor, V: Tensor, dOut: Tensor, mask?: Tensor,
): { dQ: Tensor; dK: Tensor; dV: Tensor } {
  const root = Math.sqrt(Q.shape[Q.ndim - 1]);
  const P = probabilities(Q, K, mask);
  const dS = softmaxBackward(P, dOut.matmul(V.transpose(-2, -1)), -1);
  return { dQ: dS.matmul(K).div(root), dK: dS.transpose(-2, -1).matmul(Q).div(root), dV: P.transpose(-2, -1).matmul(dOut) };
}
