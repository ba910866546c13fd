/**
 * Correct float32 reformulations of the assignment, each written differently from the reference
 * (which scales after QKᵀ, subtracts the max, uses exp, sums forward and projects heads by concat):
 * what the fairness self-test grades on every case and on drawn variants.
 */
import type { Style } from './submission';

export const STYLES: readonly Style[] = [
  // FlashAttention's base-2 step: log₂e folded into the score scale, exp2 of score − max.
  { name: 'base2_folded_scale', base2: true, scale: 'scores', pass: 'two_pass', order: 'forward', heads: 'project' },
  // The Triton tutorial's kernel: Q pre-scaled by log₂e/√d_k, tiles of 4 keys merged online.
  { name: 'base2_tiled_query_scaled', base2: true, scale: 'query', pass: 'tiled', order: 'forward', heads: 'project' },
  { name: 'base2_log_sum_exp_pairwise', base2: true, scale: 'divide', pass: 'log_sum_exp', order: 'pairwise', heads: 'weights_first' },
  { name: 'log_sum_exp_reversed', base2: false, scale: 'divide', pass: 'log_sum_exp', order: 'reversed', heads: 'project' },
  { name: 'online_pairwise', base2: false, scale: 'scores', pass: 'online', order: 'pairwise', heads: 'project' },
  { name: 'online_reversed_weights_first', base2: false, scale: 'query', pass: 'online', order: 'reversed', heads: 'weights_first' },
  // PyTorch's math backend: √(1/√d_k) on both Q and K before QKᵀ.
  { name: 'tiled_split_scale', base2: false, scale: 'split', pass: 'tiled', order: 'pairwise', heads: 'project' },
  { name: 'deferred_normalisation_reversed', base2: false, scale: 'scores', pass: 'two_pass', deferred: true, order: 'reversed', heads: 'weights_first' },
  { name: 'base2_online_split_scale', base2: true, scale: 'split', pass: 'online', order: 'reversed', heads: 'project' },
];
