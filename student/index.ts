/**
 * The assignment: implement the four functions below. This file (and any helper file you add in
 * this folder) is your submission.
 *
 * Run `npm test` to check everything, or `npm test -- -t scaled_dot_product` for the attention
 * tests only.
 *
 * Tensors (`../lib/tensor`) work like a small torch: row-major `data` (Float32Array,
 * Float64Array, or Uint8Array for booleans) and `shape`. Methods you can use:
 *   creation  Tensor.zeros/ones/full/eye/arange/fromNested/randn, new Tensor(data, shape)
 *   shape     reshape(...dims) (one -1 allowed), transpose(d0, d1) and permute(...) (negative dims
 *             count from the end), unsqueeze, squeeze, astype
 *   math      add, sub, mul, div (Tensor or number, broadcasting like NumPy), neg, exp, log, sqrt
 *   compare   eq, ne, lt, le, gt, ge → boolean tensors; logicalNot/And/Or, isNaN
 *   reduce    max/min/sum/mean(dim, keepdim)
 *   linear    matmul (batched; leading dims broadcast)
 *   select    maskedFill(mask, value) (fill where mask is true), Tensor.where(cond, a, b)
 * There is no softmax, attention or triangular-mask helper: those are yours to write.
 * You may also ignore the methods and loop over `data`/`shape` yourself. You may return a Tensor
 * or any `{ shape: number[], data }` with data a Float32Array, Float64Array or plain number[]
 * (booleans too, for causalMask), in row-major order: that is `TensorLike`. If yours returns a
 * Tensor and another function calls it (multiHeadSelfAttention calls your attention), declare the
 * return type `Tensor` to use its methods.
 *
 * Type errors cost no points, and `npm test` does not show them: run `npm run typecheck`.
 */
import { NotImplementedError } from '../lib/errors';
// A value import, not `import type`: Tensor.zeros, Tensor.where and new Tensor(…) need the class.
import { Tensor, type TensorLike } from '../lib/tensor';

export interface AttentionWeights {
  qProj: Tensor;
  kProj: Tensor;
  vProj: Tensor;
  oProj: Tensor;
}

/**
 * Softmax of `x` along `dim` (negative counts from the end: -1 is the last dim).
 * Every slice along `dim` must sum to 1. Must be exact for large inputs: x + 100 and x + 1000 must
 * give the same result as x, with no Infinity or NaN (exp(1000) overflows: think about what you
 * can subtract first without changing the result).
 */
export function softmax(x: Tensor, dim: number): TensorLike {
  throw new NotImplementedError('softmax');
}

/**
 * Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V
 *
 * Q [...batch, queries, dK], K [...batch, keys, dK], V [...batch, keys, dV]: any number of leading
 * batch-like dims (zero or more), the same for Q, K and V. Returns [...batch, queries, dV].
 *
 * `mask` (optional, boolean: 1 = may attend, 0 = must not) has a shape broadcastable to
 * [...batch, queries, keys]; a 2-D [queries, keys] mask applies to every batch entry.
 * - masked positions get probability exactly 0 (not just small: −100 is not enough);
 * - the probabilities of the allowed keys of a query sum to 1;
 * - a query whose keys are ALL masked outputs a row of zeros, never NaN.
 * Scale by √d_k before the softmax, and keep the softmax stable: scores can be in the thousands.
 */
export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): TensorLike {
  throw new NotImplementedError('scaledDotProductAttention');
}

/**
 * Boolean [seqLen, seqLen] mask for autoregressive attention: entry [i, j] is 1 (true) when query i
 * may attend to key j, that is when j ≤ i (itself and the past), and 0 for the future.
 */
export function causalMask(seqLen: number): TensorLike {
  throw new NotImplementedError('causalMask');
}

/**
 * Multi-head self-attention, no bias (PyTorch nn.Linear(bias=False)).
 *
 * x [...batch, seq, dModel]. Each weight is [dModel, dModel] in (out, in) layout, so a projection
 * is y = x Wᵀ. Project x to Q, K and V; split the features into `numHeads` contiguous blocks of
 * dModel / numHeads (head h takes features h·dHead … (h+1)·dHead − 1); run scaled dot-product
 * attention per head with `mask` ([seq, seq], the same for every head and batch entry); put the
 * heads back side by side in order; apply oProj. Returns [...batch, seq, dModel].
 */
export function multiHeadSelfAttention(
  x: Tensor,
  weights: AttentionWeights,
  numHeads: number,
  mask?: Tensor,
): TensorLike {
  throw new NotImplementedError('multiHeadSelfAttention');
}
// part: weights, single_head

/*
 * The course's optional parts, graded in this handout besides the four functions above (Problems 2
 * and 3, Project 4): implement these too. `npm test -- -t test_attention`, `-t single_head` and
 * `-t multihead_attention` run their tests.
 */
// end part
// part: weights

/** attention's options. Each may be left out: no mask, scaled, weights returned. */
export interface AttentionOptions {
  mask?: Tensor;
  scale?: boolean;
  returnWeights?: boolean;
}

/**
 * Project 4's attention: Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V, and the attention weights it
 * multiplies V with.
 *
 * Q [...batch, queries, dK], K [...batch, keys, dK], V [...batch, keys, dV], as for
 * scaledDotProductAttention, and the same boolean `mask` (1 = may attend, 0 = must not),
 * broadcastable to [...batch, queries, keys] (it may have fewer dims, never more).
 * Returns { output [...batch, queries, dV], weights [...batch, queries, keys] }:
 * - `scale: false` leaves out the 1/√d_k: Problem 2's unscaled softmax(Q Kᵀ) V;
 * - `returnWeights: false` returns { output } alone: leave `weights` out (or undefined);
 * - each query's weights sum to 1 over its allowed keys, and masked keys weigh exactly 0;
 * - a query whose keys are ALL masked has weights of zeros and an output of zeros, never NaN.
 */
export function attention(Q: Tensor, K: Tensor, V: Tensor, options?: AttentionOptions): { output: TensorLike; weights?: TensorLike } {
  throw new NotImplementedError('attention');
}
// end part
// part: single_head

/**
 * Single-head attention's three projections, each PyTorch's nn.Linear(n_embd, n_embd) with its
 * bias: a weight [dModel, dModel] in (out, in) layout and a bias [dModel], so y = x Wᵀ + b.
 */
export interface SingleHeadWeights {
  qProj: Tensor;
  qBias: Tensor;
  kProj: Tensor;
  kBias: Tensor;
  vProj: Tensor;
  vBias: Tensor;
}

/** Multi-head attention's four projections, each with its bias: those of SingleHeadWeights, and the output projection. */
export interface BiasedAttentionWeights extends SingleHeadWeights {
  oProj: Tensor;
  oBias: Tensor;
}

/**
 * Problems 2 and 3: single-head self-attention with biased projections.
 *
 * x [...batch, seq, dModel]. Q = x qProjᵀ + qBias, and K and V alike; then attention over the whole
 * of dModel (one head: d_k = dModel), scaled by 1/√dModel unless `scale` is false (Problem 2's
 * SimpleAttention), with the optional `mask` ([seq, seq], 1 = may attend). No output projection.
 * Returns [...batch, seq, dModel].
 */
export function singleHeadAttention(x: Tensor, weights: SingleHeadWeights, options?: { scale?: boolean; mask?: Tensor }): TensorLike {
  throw new NotImplementedError('singleHeadAttention');
}

/**
 * Project 4's multi-head attention, with biases on all four projections.
 *
 * x [...batch, seq, dModel]. As multiHeadSelfAttention, with y = x Wᵀ + b for every projection:
 * project x to Q, K and V; split the features into `numHeads` contiguous blocks of
 * dModel / numHeads; attention per head, scaled by 1/√(dModel / numHeads), with `mask` ([seq, seq],
 * the same for every head and batch entry); the heads side by side in order; then oProj and oBias.
 * Returns { output [...batch, seq, dModel], weights [...batch, numHeads, seq, seq] }: every head's
 * attention weights.
 */
export function multiHeadAttention(
  x: Tensor,
  weights: BiasedAttentionWeights,
  numHeads: number,
  options?: { mask?: Tensor },
): { output: TensorLike; weights: TensorLike } {
  throw new NotImplementedError('multiHeadAttention');
}
// end part
// part: gradients

/**
 * The gradients part: the backward pass of softmax, by hand (there is no autograd here).
 *
 * y = softmax(x, dim) is what your softmax returned, dy = ∂L/∂y (the gradient arriving from
 * whatever used y), both of the same shape. Return ∂L/∂x, of y's shape: work it out from the
 * softmax's Jacobian, slice by slice along `dim` (negative counts from the end, as for softmax).
 * Where y is exactly 0 (a masked position), no gradient may arrive.
 */
export function softmaxBackward(y: Tensor, dy: Tensor, dim: number): TensorLike {
  throw new NotImplementedError('softmaxBackward');
}

/**
 * The gradients part: the backward pass of scaledDotProductAttention.
 *
 * Q, K, V and mask as scaledDotProductAttention takes them (the same batch dims for Q, K and V; a
 * boolean mask, 1 = may attend, with no more dims than the scores); dOut = ∂L/∂output
 * [...batch, queries, dV], the gradient of some loss L with respect to attention's output.
 * Return { dQ, dK, dV }: ∂L/∂Q, ∂L/∂K and ∂L/∂V, of Q's, K's and V's shapes (each a Tensor or
 * { shape, data }; float32 or float64). The scores are Q Kᵀ / √d_k, so the scale is part of the
 * chain rule. Masked positions, and queries whose keys are all masked, pass no gradient at all.
 */
export function scaledDotProductAttentionBackward(
  Q: Tensor,
  K: Tensor,
  V: Tensor,
  dOut: Tensor,
  mask?: Tensor,
): { dQ: TensorLike; dK: TensorLike; dV: TensorLike } {
  throw new NotImplementedError('scaledDotProductAttentionBackward');
}
// end part
