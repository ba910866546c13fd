/**
 * The gradients part's graded cases (an optional part: adapters/gradients.ts declares its
 * functions), rows as tests/cases.ts writes them. Every value is compared within the contract's
 * tolerance or the case's float32 error bound (reference/float32Error/backward.ts, bound.npy and
 * bound_<part>.npy beside each case): a gradient that is 0 in exact arithmetic comes out of correct
 * float32 code as a few 10⁻⁶ where the terms that cancel are large, and the bound carries that term.
 *
 * Points: softmax backward 1, attention backward 4; hidden 0.25 and 0.5625 on top.
 */
import type { GradedCase } from '../lib/assignment/cases';
import type { Tolerance } from '../lib/compare';

/** The part's function ids (adapters/gradients.ts). */
export type GradientFunction = 'softmax_backward' | 'scaled_dot_product_attention_backward';

type Case = GradedCase & { fn: GradientFunction };
type Row = Omit<Case, 'hidden' | 'tolerance' | 'checks'>;

const SOFTMAX = 'softmax_backward';
const ATTENTION = 'scaled_dot_product_attention_backward';

/** The part's cases, each compared within `tolerance` (cases.ts hands in the contract's) or its bound. */
export function gradientCases(tolerance: Tolerance): Case[] {
  const visible = (row: Row): Case => ({ tolerance, checks: [], ...row, hidden: false });
  const hidden = (row: Row): Case => ({ tolerance, checks: [], ...row, hidden: true });
  return [
    visible({ name: 'test_softmax_backward_last_dim', fn: SOFTMAX, points: 0.25, fixture: 'softmax_backward_last_dim',
      what: 'the gradient of softmax along dim -1 of a [5, 10] input: y ⊙ (dy − Σ(dy ⊙ y)), the sum along dim' }),
    visible({ name: 'test_softmax_backward_non_last_dim', fn: SOFTMAX, points: 0.125, fixture: 'softmax_backward_middle_dim',
      what: 'along dim 1 of a [3, 6, 4] input (not the last dim)' }),
    visible({ name: 'test_softmax_backward_negative_dim', fn: SOFTMAX, points: 0.125, fixture: 'softmax_backward_negative_dim',
      what: 'along dim -2 of a [3, 6, 4] input: a negative dim counts from the end' }),
    visible({ name: 'test_softmax_backward_peaked', fn: SOFTMAX, points: 0.25, fixture: 'softmax_backward_peaked',
      what: 'nearly one-hot rows (softmax of N(0,1)·30): the largest entry\'s gradient cancels to nearly 0' }),
    visible({ name: 'test_softmax_backward_masked', fn: SOFTMAX, points: 0.25, fixture: 'softmax_backward_masked',
      what: 'y exactly 0 at masked positions: their gradient is exactly 0' }),

    visible({ name: 'test_scaled_dot_product_attention_backward', fn: ATTENTION, points: 0.75, fixture: 'sdpa_backward_3d',
      what: 'Q [2, 8, 32], K [2, 10, 32], V [2, 10, 24], dOut [2, 8, 24], boolean mask [2, 8, 10]: dQ, dK and dV' }),
    visible({ name: 'test_4d_scaled_dot_product_attention_backward_no_mask', fn: ATTENTION, points: 0.5, fixture: 'sdpa_backward_4d_no_mask',
      what: 'Q, K, V, dOut [2, 2, 6, 16] without a mask: two batch dims, as many keys as queries' }),
    visible({ name: 'test_scaled_dot_product_attention_backward_no_batch_dims', fn: ATTENTION, points: 0.5, fixture: 'sdpa_backward_no_batch_dims',
      what: 'no batch dims: Q [7, 16], K [9, 16], V [9, 12], dOut [7, 12], mask [7, 9]' }),
    visible({ name: 'test_scaled_dot_product_attention_backward_2d_mask_broadcast', fn: ATTENTION, points: 0.5, fixture: 'sdpa_backward_2d_mask',
      what: 'a 2-D [8, 8] mask applied to every entry of a [3, 2] batch' }),
    visible({ name: 'test_5d_scaled_dot_product_attention_backward', fn: ATTENTION, points: 0.5, fixture: 'sdpa_backward_5d',
      what: 'three batch dims: Q [2, 2, 2, 4, 12], with a mask [2, 1, 2, 4, 6] whose size-1 dim broadcasts' }),
    visible({ name: 'test_scaled_dot_product_attention_backward_masked', fn: ATTENTION, points: 0.75, fixture: 'sdpa_backward_masked_rows',
      what: 'masked positions pass no gradient: queries whose keys are all masked get dQ = 0, a key masked for every query gets dK = dV = 0' }),
    visible({ name: 'test_scaled_dot_product_attention_backward_large_scores', fn: ATTENTION, points: 0.5, fixture: 'sdpa_backward_large_scores',
      what: 'scores near 0, ±1024 and ±1536: nearly one-hot probabilities, whose gradients nearly cancel' }),

    hidden({ name: 'test_softmax_backward_dim_0_of_1d_float64_hidden', fn: SOFTMAX, points: 1 / 16, fixture: 'hidden/softmax_backward_dim_0_of_1d_float64',
      what: 'along dim 0 of a float64 1-D input' }),
    hidden({ name: 'test_softmax_backward_dim_minus_3_of_4d_hidden', fn: SOFTMAX, points: 1 / 16, fixture: 'hidden/softmax_backward_dim_-3_of_4d',
      what: 'along dim -3 of a 4-D input with masked positions' }),
    hidden({ name: 'test_softmax_backward_hidden', fn: SOFTMAX, points: 1 / 16, fixture: 'hidden/softmax_backward_2d',
      what: 'along dim -1 of a 2-D input' }),
    hidden({ name: 'test_softmax_backward_again_hidden', fn: SOFTMAX, points: 1 / 16, fixture: 'hidden/softmax_backward_2d_again',
      what: 'the shapes of the test before, new values: nothing may be kept from an earlier call' }),
    hidden({ name: 'test_scaled_dot_product_attention_backward_hidden', fn: ATTENTION, points: 1 / 16, fixture: 'hidden/sdpa_backward_3d',
      what: 'Q [2–3, n_q, d], K and V [2–3, n_k, …], n_k > n_q, a random mask' }),
    hidden({ name: 'test_scaled_dot_product_attention_backward_again_hidden', fn: ATTENTION, points: 1 / 16, fixture: 'hidden/sdpa_backward_3d_again',
      what: 'the shapes of the test before, new values: nothing may be kept from an earlier call' }),
    hidden({ name: 'test_scaled_dot_product_attention_backward_mask_fewer_batch_dims_hidden', fn: ATTENTION, points: 1 / 16,
      fixture: 'hidden/sdpa_backward_mask_fewer_batch_dims', what: 'Q [B, H, n_q, d] with a mask [H, n_q, n_k]' }),
    hidden({ name: 'test_scaled_dot_product_attention_backward_mask_batch_dims_1_hidden', fn: ATTENTION, points: 1 / 16,
      fixture: 'hidden/sdpa_backward_mask_batch_dims_1', what: 'Q [B, H, n_q, d] with a mask [1, 1, n_q, n_k]' }),
    hidden({ name: 'test_scaled_dot_product_attention_backward_mask_first_batch_dim_1_hidden', fn: ATTENTION, points: 1 / 16,
      fixture: 'hidden/sdpa_backward_mask_first_batch_dim_1', what: 'Q [B, H, n_q, d] with a mask [1, H, n_q, n_k]' }),
    hidden({ name: 'test_scaled_dot_product_attention_backward_padding_mask_float64_hidden', fn: ATTENTION, points: 1 / 16,
      fixture: 'hidden/sdpa_backward_padding_mask_float64', what: 'float64 inputs [B, H, …] with a padding mask [B, 1, 1, n_k]' }),
    hidden({ name: 'test_scaled_dot_product_attention_backward_mask_key_dim_1_hidden', fn: ATTENTION, points: 1 / 16,
      fixture: 'hidden/sdpa_backward_mask_key_dim_1', what: 'a mask [n_q, 1]: a query whose one mask entry is 0 has every key masked' }),
    hidden({ name: 'test_scaled_dot_product_attention_backward_2d_1d_mask_small_hidden', fn: ATTENTION, points: 1 / 16,
      fixture: 'hidden/sdpa_backward_2d_1d_mask_small', what: 'Q [n_q, d] with no batch dims, a 1-D mask [n_k], scores within ±0.01' }),
    hidden({ name: 'test_scaled_dot_product_attention_backward_rows_apart_hidden', fn: ATTENTION, points: 1 / 16,
      fixture: 'hidden/sdpa_backward_rows_apart', what: 'queries whose scores sit thousands apart, with a mask' }),
  ];
}
