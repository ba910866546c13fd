/**
 * The domain of each graded function: the classes of calls the contract (and the stubs' doc
 * comments) allow, as data. Every class is reached by at least one visible or hidden case of
 * tests/cases.ts; classify.ts computes the classes a case reaches from its inputs, coverage.ts
 * those of the whole table (a repeated call is a matter of order), and a self-test fails when a
 * class has no case.
 *
 * What "broadcastable to [...batch, n_q, n_k]" admits, precisely: the mask's shape, aligned at
 * the right with [...batch, n_q, n_k], has at most as many dims, and each of its dims equals the
 * one it is aligned with or is 1 (numpy's and torch's broadcasting to that shape). So a mask may
 * have fewer batch dims than Q (a 2-D mask has none), size-1 dims anywhere in its batch part, a
 * query dim of 1 (one row of keys for every query: a padding mask) or a key dim of 1, or be 1-D
 * [n_k]. A 0-d mask is broadcastable too, but says nothing per key: no case uses one.
 */
import type { GradedFunction } from '../../lib/assignment/cases';

export interface DomainClass {
  id: string;
  fn: GradedFunction;
  /** The class in a few words, as a failing coverage check names it. */
  about: string;
}

const of = (fn: GradedFunction) => (id: string, about: string): DomainClass => ({ id: `${fn}: ${id}`, fn, about });
const softmax = of('softmax');
const attention = of('scaled_dot_product_attention');
const causal = of('causal_mask');
const multiHead = of('multihead_self_attention');

/** softmax's inputs have 1 to 4 dims, and every dim of each, positive and negative, is a class. */
export const SOFTMAX_NDIMS = [1, 2, 3, 4] as const;
export const softmaxDimClass = (dim: number, ndim: number): string => `softmax: dim ${dim} of ${ndim}-D`;

export const REPEATED = 'called again in one child with the same input shapes and another expected output';

export const DOMAIN: readonly DomainClass[] = [
  ...SOFTMAX_NDIMS.flatMap((ndim) =>
    Array.from({ length: 2 * ndim }, (_, i) => i - ndim).map((dim) => softmax(`dim ${dim} of ${ndim}-D`, `softmax along dim ${dim} of a ${ndim}-D input`)),
  ),
  softmax('size-1 dim', 'softmax along a dim of size 1 (every output is 1)'),
  softmax('float32', 'a float32 input'),
  softmax('float64', 'a float64 input'),
  softmax('small', 'values within ±0.01 (near uniform)'),
  softmax('large', 'values 500 or more in magnitude: exp overflows without the max subtracted'),
  softmax('slices apart', "slices whose maxima are 200 or more apart: each slice's own max, not the tensor's"),
  softmax('repeated', REPEATED),

  ...[0, 1, 2, 3].map((n) => attention(`${n} batch dims`, `Q, K, V with ${n} leading batch dims${n === 0 ? ' (2-D)' : ''}`)),
  attention('no mask', 'no mask'),
  attention('mask full', 'a mask of the full shape [...batch, n_q, n_k]'),
  attention('mask 2-D on batch', 'a 2-D [n_q, n_k] mask on batched inputs'),
  attention('mask fewer batch dims', 'a mask with some but not all of the batch dims ([H, n_q, n_k] on [B, H, …])'),
  attention('mask batch dims 1', 'a mask whose batch dims are all 1 ([1, n_q, n_k], [1, 1, n_q, n_k])'),
  attention('mask first batch dim 1', 'a mask with a size-1 first batch dim beside a full one ([1, H, n_q, n_k])'),
  attention('mask last batch dim 1', 'a mask with a size-1 last batch dim beside a full one ([B, 1, n_q, n_k])'),
  attention('mask middle batch dim 1', 'a mask with a size-1 middle batch dim ([A, 1, C, n_q, n_k])'),
  attention('mask query dim 1', 'a mask with one row for every query ([..., 1, n_k]: a padding mask)'),
  attention('mask key dim 1', 'a mask with one column for every key ([..., n_q, 1])'),
  attention('mask 1-D', 'a 1-D mask [n_k]'),
  attention('n_q ≠ n_k', 'more or fewer queries than keys'),
  attention('d_k ≠ d_v', 'values wider or narrower than queries and keys'),
  attention('fully masked rows', 'a query whose keys are all masked (its output is zeros)'),
  attention('float32', 'float32 inputs'),
  attention('float64', 'float64 inputs'),
  attention('small', 'scores within ±0.01 (near uniform)'),
  attention('large', 'scores 500 or more in magnitude: exp overflows without the row max subtracted'),
  attention('rows apart', "queries whose largest scores are 500 or more apart: each row's own max"),
  attention('repeated', REPEATED),

  causal('length 1', 'causalMask(1)'),
  causal('length 2', 'causalMask(2): the smallest with a hidden key'),
  causal('length 3 to 16', 'causalMask(n), 3 ≤ n ≤ 16'),
  causal('length 17 or more', 'causalMask(n), n ≥ 17'),
  causal('repeated', 'called again in one child with another length'),

  ...[0, 1, 2].map((n) => multiHead(`${n} batch dims`, `x with ${n} leading batch dims${n === 0 ? ' ([seq, d_model])' : ''}`)),
  multiHead('no mask', 'no mask'),
  multiHead('causal mask', 'a causal [seq, seq] mask'),
  multiHead('other mask', 'a [seq, seq] mask that is not causal'),
  multiHead('1 head', 'numHeads 1'),
  multiHead('2 heads', 'numHeads 2'),
  multiHead('3 or more heads', 'numHeads 3 or more, d_head > 1'),
  multiHead('d_head 1', 'numHeads = d_model: one feature per head'),
  multiHead('float32', 'float32 x and weights'),
  multiHead('float64', 'float64 x and weights'),
  multiHead('repeated', REPEATED),
];

export const classId = (fn: GradedFunction, id: string): string => `${fn}: ${id}`;
