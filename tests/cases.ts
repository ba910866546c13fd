/**
 * THE table of graded cases: the vitest suite and the grader both read it, so this is the one place
 * where what is graded, and for how many points, is decided. Names are snake_case and carry the
 * function's name, so `npm test -- -t scaled_dot_product` selects the attention tests.
 *
 * Points follow the course's weights (as in CS336): scaled dot-product attention 5, softmax 1,
 * multi-head self-attention 5, causal mask 1. Hidden cases (instructor-only fixtures) come on top
 * (softmax 0.5, attention 1, causal mask 0.5, multi-head 0.5) and are graded only with
 * `npm run grade -- --hidden`. The optional parts' cases (parts.ts) count only when the switch
 * turns their part on: Project 4's attention with weights 3 (+0.5 hidden), single-head attention 2
 * (+0.25), multi-head attention with biases 3 (+0.5).
 *
 * What the cases must reach is written down beside this table, in lib/model/domain.ts: the classes
 * of calls the contract allows (every softmax dim of 1- to 4-D inputs, 0 to 3 batch dims, every
 * broadcast of the mask, float64 inputs, repeated calls…). A self-test computes the classes each
 * case reaches and fails when one has no case. A function's cases run in the table's order in
 * one child, so a case placed after another of the same shapes shows code that keeps state.
 */
import type { GradedCase as Case } from '../lib/assignment/cases';
import type { Tolerance } from '../lib/compare';
import { gradientCases, type GradientFunction } from './gradientCases';
import { inParts, PARTS_ON } from './parts';

export type { PropertyCheck } from '../lib/assignment/cases';

/** This assignment's graded functions, by id (adapters/functions.ts declares how each is called). */
export type GradedFunction =
  | 'softmax' | 'scaled_dot_product_attention' | 'causal_mask' | 'multihead_self_attention'
  | 'attention' | 'single_head_attention' | 'multihead_attention'
  | GradientFunction;

/** A case of this assignment: one of its functions'. */
export type GradedCase = Case & { fn: GradedFunction };

/** The CS336 tolerance, elementwise |actual − expected| ≤ atol + rtol·|expected|. */
export const CONTRACT_TOLERANCE: Tolerance = { atol: 1e-6, rtol: 1e-4 };
const EXACT: Tolerance = { atol: 0, rtol: 0 };

/*
 * Where the CS336 tolerance is narrower than a correct float32 computation in another order can
 * be on a case's own inputs (large scores, outputs that nearly cancel), each element's tolerance
 * widens to the float32 error bound of the function on those inputs: the reference's error model
 * (reference/float32Error/, derived in docs/float32-error.md) writes it beside each float case as
 * bound.npy, and computes it for a case drawn per submission. causalMask is exact.
 */

type Row = Omit<GradedCase, 'hidden' | 'tolerance' | 'checks'> & Partial<Pick<GradedCase, 'tolerance' | 'checks'>>;

/** The hidden softmax cases beside the visible ones: every dim of 1- to 4-D inputs (lib/model/domain.ts). */
const SOFTMAX_DIMS: readonly [dim: number, ndim: number, more: string][] = [
  [0, 1, ', float64'], [-1, 1, ', values N(0,1)·0.001'], [0, 2, ''], [1, 2, ', float64'], [-2, 2, ''],
  [2, 3, ''], [-1, 3, ''], [-3, 3, ' whose dim 0 has size 1'],
  [0, 4, ''], [1, 4, ''], [2, 4, ''], [3, 4, ''], [-1, 4, ', values N(0,1)·0.001'], [-2, 4, ', float64'], [-3, 4, ''], [-4, 4, ''],
];

/** The hidden attention cases for the mask broadcasts the visible ones leave out, and more. */
const ATTENTION_MASKS: readonly [key: string, what: string][] = [
  ['mask_fewer_batch_dims', 'Q [B, H, n_q, d] with a mask [H, n_q, n_k]: fewer batch dims than Q'],
  ['mask_batch_dims_1', 'Q [B, H, n_q, d] with a mask [1, 1, n_q, n_k]'],
  ['mask_first_batch_dim_1', 'Q [B, H, n_q, d] with a mask [1, H, n_q, n_k]'],
  ['mask_middle_batch_dim_1', 'Q [A, B, C, n_q, d] with a mask [A, 1, C, n_q, n_k]'],
  ['padding_mask_float64', 'float64 Q, K, V [B, H, …] with a padding mask [B, 1, 1, n_k]'],
  ['mask_key_dim_1', 'a mask [n_q, 1] on Q [B, n_q, d]: a query whose one mask entry is 0 has every key masked'],
  ['2d_1d_mask_small', 'Q [n_q, d] with no batch dims, a 1-D mask [n_k], scores within ±0.01'],
];

const withDefaults = (row: Row) => ({ tolerance: CONTRACT_TOLERANCE, checks: [], ...row });
const visible = (row: Row): GradedCase => ({ ...withDefaults(row), hidden: false });
const hidden = (row: Row): GradedCase => ({ ...withDefaults(row), hidden: true });

/** Every case of every part (tests/parts.ts): the fixture generator makes them all, whatever the switch grades. */
export const ALL_CASES: readonly GradedCase[] = [
  visible({ name: 'test_softmax_last_dim', fn: 'softmax', points: 0.25, fixture: 'softmax_last_dim',
    what: 'softmax along dim -1 of a [5, 10] input' }),
  visible({ name: 'test_softmax_non_last_dim', fn: 'softmax', points: 0.125, fixture: 'softmax_middle_dim',
    what: 'softmax along dim 1 of a [3, 6, 4] input (not the last dim)' }),
  visible({ name: 'test_softmax_negative_dim', fn: 'softmax', points: 0.125, fixture: 'softmax_negative_dim',
    what: 'softmax along dim -2 of a [3, 6, 4] input: a negative dim counts from the end, and -1 is not the only one' }),
  visible({ name: 'test_softmax_stable_shift_100', fn: 'softmax', points: 0.125, fixture: 'softmax_shift_100',
    what: 'softmax of inputs shifted by +100 (same result as unshifted, no overflow)' }),
  visible({ name: 'test_softmax_stable_shift_1000', fn: 'softmax', points: 0.125, fixture: 'softmax_shift_1000',
    what: 'softmax of inputs shifted by +1000: exp(1000) overflows unless the max is subtracted first' }),
  visible({ name: 'test_softmax_stable_rows_apart', fn: 'softmax', points: 0.25, fixture: 'softmax_rows_apart',
    what: "rows whose maxima are hundreds to thousands apart: subtract each row's own max, not the whole tensor's (nor its mean)" }),

  visible({ name: 'test_scaled_dot_product_attention', fn: 'scaled_dot_product_attention', points: 0.75,
    fixture: 'sdpa_3d', what: 'Q [4, 12, 64], K and V [4, 16, 64], boolean mask [4, 12, 16] (CS336 shapes)' }),
  visible({ name: 'test_4d_scaled_dot_product_attention', fn: 'scaled_dot_product_attention', points: 0.75,
    fixture: 'sdpa_4d', what: 'the same data as 4-D: [2, 2, 12, 64] with mask [2, 2, 12, 16]' }),
  visible({ name: 'test_scaled_dot_product_attention_no_mask', fn: 'scaled_dot_product_attention', points: 0.25,
    fixture: 'sdpa_no_mask', what: 'the CS336 shapes without a mask' }),
  visible({ name: 'test_scaled_dot_product_attention_no_batch_dims', fn: 'scaled_dot_product_attention', points: 0.25,
    fixture: 'sdpa_no_batch_dims', what: 'no batch dims at all: Q [7, 16], K [9, 16], V [9, 12], mask [7, 9]' }),
  visible({ name: 'test_scaled_dot_product_attention_2d_mask_broadcast', fn: 'scaled_dot_product_attention',
    points: 0.5, fixture: 'sdpa_2d_mask', what: 'a 2-D [10, 10] mask applied to every entry of a [3, 2] batch' }),
  visible({ name: 'test_scaled_dot_product_attention_mask_batch_dim_1', fn: 'scaled_dot_product_attention',
    points: 0.25, fixture: 'sdpa_mask_batch_dim_1', what: 'a mask [2, 1, 6, 8] on Q [2, 3, 6, 16]: its size-1 dim broadcasts over the 3 entries of that batch dim' }),
  visible({ name: 'test_scaled_dot_product_attention_rectangular', fn: 'scaled_dot_product_attention', points: 0.5,
    fixture: 'sdpa_rectangular', what: 'n_q 5 ≠ n_k 9 and d_v 40 ≠ d_k 24: scale by √d_k, not √d_v' }),
  visible({ name: 'test_5d_scaled_dot_product_attention', fn: 'scaled_dot_product_attention', points: 0.5,
    fixture: 'sdpa_5d', what: 'three leading batch dims: Q [2, 2, 3, 4, 16]' }),
  visible({ name: 'test_scaled_dot_product_attention_fully_masked_rows', fn: 'scaled_dot_product_attention',
    points: 0.5, fixture: 'sdpa_fully_masked_rows',
    what: 'queries whose keys are all masked must output zeros, not NaN or a uniform average' }),
  visible({ name: 'test_scaled_dot_product_attention_large_scores', fn: 'scaled_dot_product_attention',
    points: 0.25, fixture: 'sdpa_large_scores', what: 'scores near 1024: exp overflows unless the softmax subtracts the row max' }),
  visible({ name: 'test_scaled_dot_product_attention_rows_apart', fn: 'scaled_dot_product_attention',
    points: 0.25, fixture: 'sdpa_rows_apart', what: "queries whose scores sit near 0, ±1024 and ±1536: subtract each row's own max, not the max of all scores" }),
  visible({ name: 'test_scaled_dot_product_attention_probabilities', fn: 'scaled_dot_product_attention',
    points: 0.25, fixture: 'sdpa_probabilities', checks: ['rows_sum_to_one', 'masked_are_zero'],
    what: 'V = [identity | 3 random columns], so the first n_k output columns are the probabilities: rows sum to 1, masked entries exactly 0' }),

  visible({ name: 'test_causal_mask', fn: 'causal_mask', points: 0.5, fixture: 'causal_mask_5',
    tolerance: EXACT, what: 'causalMask(5): 1 where key ≤ query' }),
  visible({ name: 'test_causal_mask_single', fn: 'causal_mask', points: 0.25, fixture: 'causal_mask_1',
    tolerance: EXACT, what: 'causalMask(1): a single position sees itself' }),
  visible({ name: 'test_causal_mask_large', fn: 'causal_mask', points: 0.25, fixture: 'causal_mask_33',
    tolerance: EXACT, what: 'causalMask(33)' }),

  visible({ name: 'test_multihead_self_attention', fn: 'multihead_self_attention', points: 1.5,
    fixture: 'mhsa', what: 'x [4, 12, 64], 4 heads, no mask' }),
  visible({ name: 'test_multihead_self_attention_causal', fn: 'multihead_self_attention', points: 1.5,
    fixture: 'mhsa_causal', what: 'x [4, 12, 64], 4 heads, causal mask [12, 12]' }),
  visible({ name: 'test_multihead_self_attention_called_again', fn: 'multihead_self_attention', points: 1,
    fixture: 'mhsa_called_again', what: 'called again with new values of x [4, 12, 64], the weights and causal mask of the test before: nothing may be kept from an earlier call (K and V cached by shape)' }),
  visible({ name: 'test_multihead_self_attention_batch_dims', fn: 'multihead_self_attention', points: 1,
    fixture: 'mhsa_batch_dims', what: 'x [2, 3, 6, 16] (two batch dims), 2 heads, causal mask' }),

  // Hidden cases are drawn (reference/fixtures/hiddenSpecs.ts): shapes and values below are ranges,
  // one draw is stored in fixtures/hidden/, and --variants draws them afresh per submission.
  hidden({ name: 'test_softmax_hidden', fn: 'softmax', points: 0.125, fixture: 'hidden/softmax',
    what: 'softmax along dim 0 of a [4–8, 2–4, 2–3] input shifted by +600 to +900' }),
  hidden({ name: 'test_softmax_rows_apart_hidden', fn: 'softmax', points: 0.125, fixture: 'hidden/softmax_rows_apart',
    what: 'rows whose maxima are thousands apart, one whose last value is 1400 above the rest' }),
  ...SOFTMAX_DIMS.map(([dim, ndim, more]) => hidden({
    name: `test_softmax_dim_${dim < 0 ? `minus_${-dim}` : dim}_of_${ndim}d_hidden`, fn: 'softmax', points: 1 / 64,
    fixture: `hidden/softmax_dim_${dim}_of_${ndim}d`, what: `softmax along dim ${dim} of a ${ndim}-D input${more}`,
  })),
  hidden({ name: 'test_scaled_dot_product_attention_hidden', fn: 'scaled_dot_product_attention', points: 0.125,
    fixture: 'hidden/sdpa_3d', what: 'Q [2–3, n_q, d], K and V [2–3, n_k, d], n_k > n_q, a random mask' }),
  hidden({ name: 'test_scaled_dot_product_attention_again_hidden', fn: 'scaled_dot_product_attention', points: 1 / 16,
    fixture: 'hidden/sdpa_3d_again', what: 'the shapes of the test before, new values: nothing may be kept from an earlier call' }),
  hidden({ name: 'test_scaled_dot_product_attention_rows_apart_hidden', fn: 'scaled_dot_product_attention', points: 0.125,
    fixture: 'hidden/sdpa_rows_apart', what: 'queries whose scores sit thousands apart, with a mask' }),
  hidden({ name: 'test_4d_scaled_dot_product_attention_hidden', fn: 'scaled_dot_product_attention', points: 0.25,
    fixture: 'hidden/sdpa_4d_2d_mask', checks: ['rows_sum_to_one', 'masked_are_zero'],
    what: 'V = [identity | 3 random columns] with two batch dims, a 2-D mask and a fully masked row' }),
  ...ATTENTION_MASKS.map(([key, what]) => hidden({
    name: `test_scaled_dot_product_attention_${key}_hidden`, fn: 'scaled_dot_product_attention', points: 1 / 16, fixture: `hidden/sdpa_${key}`, what,
  })),
  hidden({ name: 'test_causal_mask_hidden', fn: 'causal_mask', points: 0.25, fixture: 'hidden/causal_mask',
    tolerance: EXACT, what: 'causalMask(n), 3 ≤ n ≤ 16' }),
  hidden({ name: 'test_causal_mask_2_hidden', fn: 'causal_mask', points: 0.25, fixture: 'hidden/causal_mask_2',
    tolerance: EXACT, what: 'causalMask(2)' }),
  hidden({ name: 'test_multihead_self_attention_hidden', fn: 'multihead_self_attention', points: 0.125,
    fixture: 'hidden/mhsa_causal', what: 'x [1–3, seq, 3·d_head], 3 heads, causal mask' }),
  hidden({ name: 'test_multihead_self_attention_again_hidden', fn: 'multihead_self_attention', points: 0.125,
    fixture: 'hidden/mhsa_causal_again', what: 'the shapes of the test before, new values: nothing may be kept from an earlier call' }),
  hidden({ name: 'test_multihead_self_attention_no_batch_dims_hidden', fn: 'multihead_self_attention', points: 0.125,
    fixture: 'hidden/mhsa_2d_one_head', what: 'x [seq, d_model] (no batch dims), 1 head, no mask' }),
  hidden({ name: 'test_multihead_self_attention_one_feature_per_head_hidden', fn: 'multihead_self_attention', points: 0.125,
    fixture: 'hidden/mhsa_dhead_1_float64', what: 'float64 x [2–3, 2–3, seq, d_model] with numHeads = d_model, a mask that is not causal' }),

  // The optional parts (tests/parts.ts): graded, and worth points, only when the switch turns them on.
  visible({ name: 'test_attention', fn: 'attention', points: 0.5, fixture: 'attention_3d',
    what: 'attention(Q, K, V) with no options: Q, K and V [2, 5, 8] (Project 4), scaled, returning { output, weights }' }),
  visible({ name: 'test_attention_causal', fn: 'attention', points: 0.5, fixture: 'attention_causal', checks: ['rows_sum_to_one', 'masked_are_zero'],
    what: 'a causal mask [6, 6] on Q, K, V [3, 6, 16]: every row of weights sums to 1, the future weighs exactly 0' }),
  visible({ name: 'test_attention_unscaled', fn: 'attention', points: 0.5, fixture: 'attention_unscaled', checks: ['rows_sum_to_one', 'masked_are_zero'],
    what: 'scale: false (Problem 2): softmax(Q Kᵀ) V without 1/√d_k, d_k 32, a mask [2, 4, 6]' }),
  visible({ name: 'test_attention_no_weights', fn: 'attention', points: 0.25, fixture: 'attention_no_weights',
    what: 'returnWeights: false: { output } alone, weights left out (or undefined); a 2-D mask [5, 7] on a batch of 2' }),
  visible({ name: 'test_attention_fully_masked_rows', fn: 'attention', points: 0.5, fixture: 'attention_fully_masked_rows',
    checks: ['rows_sum_to_one', 'masked_are_zero', 'masked_rows_zero'],
    what: 'queries whose keys are all masked: their output and their weights are exactly zeros, never NaN or a uniform average' }),
  visible({ name: 'test_attention_4d_rectangular', fn: 'attention', points: 0.5, fixture: 'attention_4d_rectangular', checks: ['rows_sum_to_one', 'masked_are_zero'],
    what: 'scale: true and returnWeights: true given: Q [2, 2, 5, 24], K [2, 2, 9, 24], V [2, 2, 9, 40], a mask [2, 1, 5, 9] broadcast over the second dim' }),
  visible({ name: 'test_attention_large_scores', fn: 'attention', points: 0.25, fixture: 'attention_large_scores',
    what: "scores near 1024: subtract each row's max before exp, for the output and the weights alike" }),

  visible({ name: 'test_single_head_attention', fn: 'single_head_attention', points: 0.5, fixture: 'single_head',
    what: 'x [2, 5, 16] (Problem 3): Q, K, V = x Wᵀ + b, scaled by 1/√16, no mask, no output projection' }),
  visible({ name: 'test_single_head_attention_unscaled', fn: 'single_head_attention', points: 0.5, fixture: 'single_head_unscaled',
    what: 'scale: false (Problem 2\'s SimpleAttention): x [2, 6, 32], softmax(Q Kᵀ) V' }),
  visible({ name: 'test_single_head_attention_causal', fn: 'single_head_attention', points: 0.5, fixture: 'single_head_causal',
    what: 'x [3, 6, 16] with a causal mask [6, 6]' }),
  visible({ name: 'test_single_head_attention_batch_dims', fn: 'single_head_attention', points: 0.5, fixture: 'single_head_batch_dims',
    what: 'x [2, 2, 4, 8] (two batch dims), scale: true given, a causal mask [4, 4]' }),

  visible({ name: 'test_multihead_attention', fn: 'multihead_attention', points: 1, fixture: 'mha_biased',
    what: 'x [2, 10, 64], 8 heads (Project 4), biases on all four projections, no mask: { output, weights [2, 8, 10, 10] }' }),
  visible({ name: 'test_multihead_attention_causal', fn: 'multihead_attention', points: 1, fixture: 'mha_biased_causal', checks: ['rows_sum_to_one', 'masked_are_zero'],
    what: 'x [2, 10, 64], 8 heads, a causal mask [10, 10] for every head: each head\'s weights rows sum to 1, the future weighs 0' }),
  visible({ name: 'test_multihead_attention_batch_dims', fn: 'multihead_attention', points: 1, fixture: 'mha_biased_batch_dims', checks: ['rows_sum_to_one', 'masked_are_zero'],
    what: 'x [2, 2, 6, 16] (two batch dims), 4 heads, a mask [6, 6] that is not causal, query 2 fully masked: its weights are 0 in every head' }),

  hidden({ name: 'test_attention_hidden', fn: 'attention', points: 0.25, fixture: 'hidden/attention', checks: ['rows_sum_to_one', 'masked_are_zero'],
    what: 'Q [2–3, n_q, d], K and V [2–3, n_k, d], scaled or not, a 2-D mask' }),
  hidden({ name: 'test_attention_no_weights_unscaled_hidden', fn: 'attention', points: 0.25, fixture: 'hidden/attention_no_weights_unscaled',
    what: 'scale: false and returnWeights: false together, two batch dims, a causal mask' }),
  hidden({ name: 'test_single_head_attention_hidden', fn: 'single_head_attention', points: 0.25, fixture: 'hidden/single_head',
    what: 'x [1–3, seq, d], scaled or not, a causal mask' }),
  hidden({ name: 'test_multihead_attention_hidden', fn: 'multihead_attention', points: 0.5, fixture: 'hidden/mha_biased', checks: ['rows_sum_to_one', 'masked_are_zero'],
    what: 'x [1–3, seq, heads·d_head], 2 to 4 heads, a causal mask' }),

  // The gradients part (tests/gradientCases.ts).
  ...gradientCases(CONTRACT_TOLERANCE),
];

/** The cases of the parts the switch grades: what npm test, the grader and every report read. */
export const GRADED_CASES: readonly GradedCase[] = ALL_CASES.filter((c) => inParts(PARTS_ON, c.fn));

export function visibleCases(fn?: string): GradedCase[] {
  return GRADED_CASES.filter((c) => !c.hidden && (fn === undefined || c.fn === fn));
}
