/**
 * THE table of graded cases: the vitest suite and the grader both read it, so this is the one place
 * where what is graded, and for how many points, is decided. Names are snake_case and carry the
 * function's name, so `npm test -- -t scaled_dot_product` selects the attention tests.
 *
 * Points follow the course's weights (as in CS336): scaled dot-product attention 5, softmax 1,
 * multi-head self-attention 5, causal mask 1. Hidden cases (instructor-only fixtures) come on top
 * and are graded only with `npm run grade -- --hidden`.
 */
import type { Tolerance } from '../lib/compare';

export type GradedFunction = 'softmax' | 'scaled_dot_product_attention' | 'causal_mask' | 'multihead_self_attention';

/** Named checks beyond closeness; each reports its own message. */
export type PropertyCheck = 'rows_sum_to_one' | 'masked_are_zero';

export interface GradedCase {
  /** Test name shown to students and used with `-t`. */
  name: string;
  fn: GradedFunction;
  points: number;
  /** Folder under fixtures/ holding the inputs and expected.npy (see fixtures/manifest.json). */
  fixture: string;
  hidden: boolean;
  tolerance: Tolerance;
  checks: readonly PropertyCheck[];
  /** What the case checks, in a sentence a student reads when it fails. */
  what: string;
}

/** The CS336 tolerance, elementwise |actual − expected| ≤ atol + rtol·|expected|. */
export const CONTRACT_TOLERANCE: Tolerance = { atol: 1e-6, rtol: 1e-4 };
const EXACT: Tolerance = { atol: 0, rtol: 0 };

type Row = Omit<GradedCase, 'hidden' | 'tolerance' | 'checks'> & Partial<Pick<GradedCase, 'tolerance' | 'checks'>>;

const visible = (row: Row): GradedCase => ({ tolerance: CONTRACT_TOLERANCE, checks: [], ...row, hidden: false });
const hidden = (row: Row): GradedCase => ({ tolerance: CONTRACT_TOLERANCE, checks: [], ...row, hidden: true });

export const GRADED_CASES: readonly GradedCase[] = [
  visible({ name: 'test_softmax_last_dim', fn: 'softmax', points: 0.25, fixture: 'softmax_last_dim',
    what: 'softmax along dim -1 of a [5, 10] input' }),
  visible({ name: 'test_softmax_non_last_dim', fn: 'softmax', points: 0.25, fixture: 'softmax_middle_dim',
    what: 'softmax along dim 1 of a [3, 6, 4] input (not the last dim)' }),
  visible({ name: 'test_softmax_stable_shift_100', fn: 'softmax', points: 0.125, fixture: 'softmax_shift_100',
    what: 'softmax of inputs shifted by +100 (same result as unshifted, no overflow)' }),
  visible({ name: 'test_softmax_stable_shift_1000', fn: 'softmax', points: 0.125, fixture: 'softmax_shift_1000',
    what: 'softmax of inputs shifted by +1000: exp(1000) overflows unless the max is subtracted first' }),
  visible({ name: 'test_softmax_stable_rows_apart', fn: 'softmax', points: 0.25, fixture: 'softmax_rows_apart',
    what: "rows whose maxima are hundreds to thousands apart: subtract each row's own max, not the whole tensor's (nor its mean)" }),

  visible({ name: 'test_scaled_dot_product_attention', fn: 'scaled_dot_product_attention', points: 1,
    fixture: 'sdpa_3d', what: 'Q [4, 12, 64], K and V [4, 16, 64], boolean mask [4, 12, 16] (CS336 shapes)' }),
  visible({ name: 'test_4d_scaled_dot_product_attention', fn: 'scaled_dot_product_attention', points: 1,
    fixture: 'sdpa_4d', what: 'the same data as 4-D: [2, 2, 12, 64] with mask [2, 2, 12, 16]' }),
  visible({ name: 'test_scaled_dot_product_attention_no_mask', fn: 'scaled_dot_product_attention', points: 0.25,
    fixture: 'sdpa_no_mask', what: 'the CS336 shapes without a mask' }),
  visible({ name: 'test_scaled_dot_product_attention_2d_mask_broadcast', fn: 'scaled_dot_product_attention',
    points: 0.5, fixture: 'sdpa_2d_mask', what: 'a 2-D [10, 10] mask applied to every entry of a [3, 2] batch' }),
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

  visible({ name: 'test_multihead_self_attention', fn: 'multihead_self_attention', points: 2,
    fixture: 'mhsa', what: 'x [4, 12, 64], 4 heads, no mask' }),
  visible({ name: 'test_multihead_self_attention_causal', fn: 'multihead_self_attention', points: 2,
    fixture: 'mhsa_causal', what: 'x [4, 12, 64], 4 heads, causal mask [12, 12]' }),
  visible({ name: 'test_multihead_self_attention_batch_dims', fn: 'multihead_self_attention', points: 1,
    fixture: 'mhsa_batch_dims', what: 'x [2, 3, 6, 16] (two batch dims), 2 heads, causal mask' }),

  hidden({ name: 'test_softmax_hidden', fn: 'softmax', points: 0.25, fixture: 'hidden/softmax',
    what: 'softmax along dim 0 of a [7, 3, 2] input shifted by +500' }),
  hidden({ name: 'test_softmax_rows_apart_hidden', fn: 'softmax', points: 0.25, fixture: 'hidden/softmax_rows_apart',
    what: 'unseen seeds: rows whose maxima are thousands apart, one spread ±1500 around its mean' }),
  hidden({ name: 'test_scaled_dot_product_attention_hidden', fn: 'scaled_dot_product_attention', points: 0.25,
    fixture: 'hidden/sdpa_3d', what: 'unseen seeds: Q [3, 7, 32], K and V [3, 9, 32], random mask' }),
  hidden({ name: 'test_scaled_dot_product_attention_rows_apart_hidden', fn: 'scaled_dot_product_attention', points: 0.25,
    fixture: 'hidden/sdpa_rows_apart', what: 'unseen seeds: queries whose scores sit thousands apart, with a mask' }),
  hidden({ name: 'test_4d_scaled_dot_product_attention_hidden', fn: 'scaled_dot_product_attention', points: 0.5,
    fixture: 'hidden/sdpa_4d_2d_mask', checks: ['rows_sum_to_one', 'masked_are_zero'],
    what: 'unseen seeds: V = [identity | 3 random columns] [2, 3, 8, 11] with a 2-D mask and a fully masked row' }),
  hidden({ name: 'test_causal_mask_hidden', fn: 'causal_mask', points: 0.5, fixture: 'hidden/causal_mask_12',
    tolerance: EXACT, what: 'causalMask(12)' }),
  hidden({ name: 'test_multihead_self_attention_hidden', fn: 'multihead_self_attention', points: 0.5,
    fixture: 'hidden/mhsa_causal', what: 'unseen seeds: x [2, 10, 48], 3 heads, causal mask' }),
];

export function visibleCases(fn?: GradedFunction): GradedCase[] {
  return GRADED_CASES.filter((c) => !c.hidden && (fn === undefined || c.fn === fn));
}
