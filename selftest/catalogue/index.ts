/**
 * The mistake catalogue: small submissions with the course's pitfalls (seeds 000–004) and other
 * realistic bugs, each breaking exactly one graded function, and correct solutions written other
 * ways. The self-tests hold the graded suite to it: every bug fails at least one test of its own
 * function and no other, and is diagnosed as its mistake; every correct solution passes everything.
 */
import path from 'node:path';
import type { GradedFunction } from '../../tests/cases';
import { ANSWER_CHANGES } from '../../lib/diagnosis/explain';
import { OUTPUT_SCALED, ROWS_PERMUTED, ROWS_SCALED, ROWS_ZERO } from '../../lib/diagnosis/outputFacts';
import { inParts, PARTS, PARTS_ON } from '../../tests/parts';

export interface CatalogueEntry {
  name: string;
  /** The submission's entry file. */
  file: string;
  /** The function the mistake is in; undefined for a correct solution. */
  breaks?: GradedFunction;
  /** Its mistake's id in lib/diagnosis/catalogue.ts (the bug's name unless given): what its failing tests must name. */
  mistake?: string;
  /** Multi-head attention built on the broken attention function: its tests fail too, and must say so (attention_broken). */
  breaksMultiHead?: boolean;
  /** Other mistakes the bug's code also makes, each shown by the cases that reach it: a failure may name them too. */
  also?: string[];
  /**
   * Why no probe confirms this bug's cause yet (then `mistake` is absent): its failures may say
   * what a probe saw, or name a generic measurement, but never another bug's cause.
   */
  undiagnosed?: string;
  /** What those multi-head failures must name, when it is not attention_broken. */
  multiHeadMistake?: string;
  /**
   * Observations a failing test of this bug may carry besides its mistake, each checked true of it
   * (on cases where the mistake itself does not show): nothing else may be said.
   */
  mayAlsoSay?: readonly string[];
  /** The parts (tests/parts.ts) whose functions it exports: the core part's alone unless it says more. */
  parts?: readonly string[];
}

/** The mistake a failing test of `fn` must name for this entry. */
export function ownMistake(entry: CatalogueEntry, fn: GradedFunction): string | undefined {
  if (entry.breaksMultiHead && fn === 'multihead_self_attention') return entry.multiHeadMistake ?? 'attention_broken';
  return entry.mistake;
}

const bug = (name: string, breaks: GradedFunction, mistake = name, more: Partial<CatalogueEntry> = {}): CatalogueEntry => ({
  name,
  file: path.join(__dirname, 'bugs', `${name}.ts`),
  breaks,
  mistake,
  ...more,
});
/** The harness's own finding: a replay of the failing call answers otherwise. */
const REPLAY_DIFFERS = ANSWER_CHANGES.id;
const sdpa = (name: string, mistake = name) => bug(name, 'scaled_dot_product_attention', mistake);
const correct = (name: string, file: string): CatalogueEntry => ({ name, file });
const undiagnosed = (name: string, breaks: GradedFunction, why: string): CatalogueEntry => ({ name, file: path.join(__dirname, 'bugs', `${name}.ts`), breaks, undiagnosed: why });

/** The parts the optional parts' entries implement: every one but the gradients. */
const FORWARD_PARTS = ['core', 'weights', 'single_head'];

export const ALL_CORRECT: readonly CatalogueEntry[] = [
  { ...correct('reference', path.join(__dirname, '..', '..', 'reference', 'index.ts')), parts: PARTS.map((p) => p.id) },
  { ...correct('tensor_methods_neg_inf', path.join(__dirname, 'bugs', 'base.ts')), parts: FORWARD_PARTS },
  // Its core functions are float32_loops's, graded as that entry: it stands for the optional parts alone.
  { ...correct('parts_float32_loops', path.join(__dirname, 'correct', 'parts_float32_loops.ts')), parts: ['weights', 'single_head'] },
  correct('float32_loops', path.join(__dirname, 'correct', 'float32_loops.ts')),
  correct('float64_minus_1e9', path.join(__dirname, 'correct', 'minus_1e9.ts')),
  correct('plain_loops_number_arrays', path.join(__dirname, 'correct', 'plain_loops.ts')),
  correct('loops_float64', path.join(__dirname, 'correct', 'loops_correct.ts')),
  correct('float32_log_sum_exp', path.join(__dirname, 'correct', 'log_sum_exp.ts')),
  // Issue 30: styles the diagnosis had not met, each with `// audit:` lines for npm run audit:diagnosis.
  correct('tensor_methods', path.join(__dirname, 'correct', 'tensor_methods.ts')),
  correct('loops_in_one', path.join(__dirname, 'correct', 'loops_in_one.ts')),
  correct('hand_strides', path.join(__dirname, 'correct', 'strides.ts')),
  correct('classes', path.join(__dirname, 'correct', 'attention_class.ts')),
  correct('recursion_over_batch_dims', path.join(__dirname, 'correct', 'recursive.ts')),
  correct('online_softmax', path.join(__dirname, 'correct', 'online_softmax.ts')),
  correct('helper_files', path.join(__dirname, 'correct', 'helper_files', 'index.ts')),
  correct('functional', path.join(__dirname, 'correct', 'functional.ts')),
];

/**
 * Whether an entry can be graded on the parts the switch turns on (tests/parts.ts): it exports every
 * graded function, and a bug's own function is one of them. With the default switch, every entry
 * of the core part; with more parts on, those that implement them too.
 */
const gradable = (entry: CatalogueEntry) =>
  PARTS_ON.every((id) => (entry.parts ?? ['core']).includes(id)) && (entry.breaks === undefined || inParts(PARTS_ON, entry.breaks));

/** The correct solutions the switch's cases can grade. */
export const CORRECT: readonly CatalogueEntry[] = ALL_CORRECT.filter(gradable);

/** The correct solutions whose lines say which part of attention they compute: what the diagnosis audit mutates. */
export const AUDITED: readonly CatalogueEntry[] = CORRECT.filter((e) =>
  ['float32_loops', 'tensor_methods', 'loops_in_one', 'hand_strides', 'classes', 'recursion_over_batch_dims', 'online_softmax', 'helper_files', 'functional'].includes(e.name));

/** Every bug of the catalogue, whatever the switch grades: each known mistake has one (selftest/diagnosis.test.ts). */
export const ALL_BUGS: readonly CatalogueEntry[] = [
  // Where no stored output matches (exp's range predicted elsewhere, a 1×1 mask), what the output shows is said.
  bug('softmax_unstable', 'softmax', 'softmax_unstable', { mayAlsoSay: ['softmax_out_of_range'] }),
  bug('softmax_ignores_dim', 'softmax', 'softmax_wrong_dim'),
  // On a softmax along dim 0 of a 3-D tensor the whole-tensor sum is also what its slices fail to sum to.
  bug('softmax_whole_tensor', 'softmax', 'softmax_whole_tensor', { mayAlsoSay: ['softmax_sums', OUTPUT_SCALED.id] }),
  bug('softmax_global_max', 'softmax', 'softmax_global_max', { mayAlsoSay: ['softmax_out_of_range'] }),
  bug('scale_missing', 'scaled_dot_product_attention'),
  bug('scale_by_dk', 'scaled_dot_product_attention'),
  bug('scale_by_sqrt_dv', 'scaled_dot_product_attention'),
  // Each changes the weights that V = identity reads back: where scores are too small to read a
  // cause from (the small hidden cases), that they differ is what may be said.
  bug('scale_after_softmax', 'scaled_dot_product_attention', 'scale_after_softmax', { mayAlsoSay: ['probabilities_wrong', OUTPUT_SCALED.id] }),
  bug('mask_inverted', 'scaled_dot_product_attention', 'mask_inverted', { mayAlsoSay: ['probabilities_wrong'] }),
  bug('mask_ignored', 'scaled_dot_product_attention', 'mask_ignored', { mayAlsoSay: ['probabilities_wrong'] }),
  bug('mask_minus_100', 'scaled_dot_product_attention'),
  bug('fully_masked_nan', 'scaled_dot_product_attention'),
  bug('fully_masked_uniform', 'scaled_dot_product_attention'),
  // On rows thousands apart no softmax over the queries fits its weights: what the probe saw is said.
  bug('softmax_over_queries', 'scaled_dot_product_attention', 'softmax_over_queries', { mayAlsoSay: ['probabilities_wrong'] }),
  bug('unstable_softmax', 'scaled_dot_product_attention'),
  sdpa('attention_global_max'),
  bug('k_not_transposed', 'scaled_dot_product_attention'),
  // It reshapes the mask to [B, n_q, n_k] too: a mask that broadcasts ([n_q, 1]) shows that.
  bug('batch_dims_3d_only', 'scaled_dot_product_attention', 'batch_dims', { also: ['mask_broadcast'] }),
  bug('mask_2d_unsqueezed_wrong', 'scaled_dot_product_attention', 'mask_broadcast'),
  sdpa('k_reshaped'),
  sdpa('shape_negative_index', 'nan_before_softmax'),
  sdpa('returns_probabilities'),
  // A 1-D mask hides the same keys from every query: each row loses the same share.
  bug('mask_after_softmax', 'scaled_dot_product_attention', 'mask_after_softmax', { mayAlsoSay: ['probabilities_wrong', OUTPUT_SCALED.id] }),
  sdpa('scale_hardcoded', 'scale_wrong'),
  sdpa('output_zeros_loop', 'output_zeros'),
  sdpa('k_reshaped_loop', 'k_reshaped'),
  sdpa('batch_first_only_loop', 'batch_first_only'),
  sdpa('batch_mixed_loop', 'batch_mixed'),
  sdpa('scale_rounded_loop', 'scale_rounded'),
  sdpa('scale_missing_loop', 'scale_missing'),
  sdpa('scale_by_dk_loop', 'scale_by_dk'),
  bug('mask_inverted_loop', 'scaled_dot_product_attention', 'mask_inverted', { mayAlsoSay: ['probabilities_wrong'] }),
  sdpa('mask_2d_loop', 'mask_broadcast'),
  sdpa('mask_minus_100_loop', 'mask_minus_100'),
  sdpa('fully_masked_nan_loop', 'fully_masked_nan'),
  sdpa('unstable_softmax_loop', 'unstable_softmax'),
  bug('mhsa_on_broken_attention', 'scaled_dot_product_attention', 'k_reshaped', { breaksMultiHead: true }),
  bug('causal_off_by_one', 'causal_mask', 'causal_off_by_one', { mayAlsoSay: ['causal_cells'] }),
  bug('causal_upper', 'causal_mask'),
  bug('heads_interleaved', 'multihead_self_attention'),
  bug('projection_not_transposed', 'multihead_self_attention'),
  bug('output_projection_missing', 'multihead_self_attention'),
  bug('mhsa_mask_ignored', 'multihead_self_attention'),
  bug('mhsa_no_head_split', 'multihead_self_attention', 'heads_not_split'),
  bug('mhsa_batch_dims_3d_only', 'multihead_self_attention', 'mhsa_batch_dims'),
  // With one feature per head, heads split by a reshape are taken apart head by head: what they show is said.
  bug('heads_reshaped', 'multihead_self_attention', 'heads_reshaped', { mayAlsoSay: ['heads_wrong'] }),
  bug('projection_not_transposed_loop', 'multihead_self_attention', 'projection_not_transposed'),
  bug('heads_interleaved_loop', 'multihead_self_attention', 'heads_interleaved'),
  // Issue 19's catalogue: styles the first one did not use (hand strides, helper files,
  // Tensor.where), wrong-index reads, masks added or multiplied, transposes on the wrong axes,
  // right values in the wrong shape, swapped operands, head order and weight mix-ups, residuals.
  sdpa('kv_swapped'),
  sdpa('kv_swapped_loop', 'kv_swapped'),
  sdpa('output_flattened', 'output_shape'),
  sdpa('output_flattened_loop', 'output_shape'),
  sdpa('k_transpose_axes', 'batch_dims'),
  bug('mask_first_row_loop', 'scaled_dot_product_attention', 'mask_leaks', { mayAlsoSay: ['probabilities_wrong'] }),
  bug('mask_added', 'scaled_dot_product_attention', 'mask_leaks', { mayAlsoSay: ['probabilities_wrong'] }),
  bug('mask_multiplied', 'scaled_dot_product_attention', 'mask_multiplied', { mayAlsoSay: ['probabilities_wrong'] }),
  bug('mask_multiplied_loop', 'scaled_dot_product_attention', 'mask_multiplied', { mayAlsoSay: ['probabilities_wrong'] }),
  bug('mask_where_inverted', 'scaled_dot_product_attention', 'mask_inverted', { mayAlsoSay: ['probabilities_wrong'] }),
  sdpa('value_offset_loop', 'batch_mixed'),
  sdpa('query_offset_loop', 'batch_mixed'),
  sdpa('scale_missing_helper', 'scale_missing'),
  bug('scale_on_output', 'scaled_dot_product_attention', 'scale_after_softmax', { mayAlsoSay: ['probabilities_wrong', OUTPUT_SCALED.id] }),
  sdpa('unstable_softmax_helper', 'unstable_softmax'),
  bug('denominator_plus_one', 'scaled_dot_product_attention', ROWS_SCALED.id, { mayAlsoSay: ['rows_not_normalised', 'probabilities_wrong', OUTPUT_SCALED.id] }),
  sdpa('online_softmax_no_rescale', 'probabilities_wrong'),
  sdpa('output_relu', 'output_not_pv'),
  bug('softmax_last_dim_loop', 'softmax', 'softmax_wrong_dim'),
  bug('softmax_whole_tensor_loop', 'softmax', 'softmax_whole_tensor', { mayAlsoSay: ['softmax_sums', OUTPUT_SCALED.id] }),
  bug('softmax_unstable_loop', 'softmax', 'softmax_unstable'),
  bug('softmax_global_max_loop', 'softmax', 'softmax_global_max'),
  bug('softmax_unstable_helper', 'softmax', 'softmax_unstable', { mayAlsoSay: ['softmax_out_of_range'] }),
  bug('causal_off_by_one_loop', 'causal_mask', 'causal_off_by_one', { mayAlsoSay: ['causal_cells'] }),
  bug('causal_upper_loop', 'causal_mask', 'causal_upper'),
  // The reverse mask again, as the causal mask transposed: its output is the stored reverse mask's on every case.
  bug('causal_transposed', 'causal_mask', 'causal_upper'),
  bug('causal_off_by_one_gt', 'causal_mask', 'causal_off_by_one', { mayAlsoSay: ['causal_cells'] }),
  bug('projections_swapped', 'multihead_self_attention'),
  bug('projections_swapped_loop', 'multihead_self_attention', 'projections_swapped'),
  bug('heads_order_reversed', 'multihead_self_attention', 'heads_order'),
  bug('mhsa_residual', 'multihead_self_attention'),
  bug('mhsa_residual_loop', 'multihead_self_attention', 'mhsa_residual'),
  bug('mhsa_divided_by_heads', 'multihead_self_attention', OUTPUT_SCALED.id),
  bug('v_proj_unused', 'multihead_self_attention', 'projection_unused'),
  bug('output_projection_not_transposed', 'multihead_self_attention', 'projection_not_transposed'),
  // Issue 29: four mistakes no case reached (full marks until then), each in two styles.
  undiagnosed('softmax_negative_dim_loop', 'softmax', 'its output (zeros, from loops that never run) is what no mistake of a fixed output gives'),
  bug('softmax_negative_dim_last', 'softmax', 'softmax_wrong_dim'),
  sdpa('mask_partial_broadcast', 'mask_broadcast'),
  sdpa('mask_partial_broadcast_loop', 'mask_broadcast'),
  undiagnosed('attention_no_batch_dims', 'scaled_dot_product_attention', 'no probe adds a batch dim to 2-D inputs yet'),
  undiagnosed('attention_no_batch_dims_loop', 'scaled_dot_product_attention', 'no probe adds a batch dim to 2-D inputs yet'),
  // A probe's call meets the kept K and V too; a replay of the graded call in a fresh instance does not.
  bug('mhsa_kv_cache', 'multihead_self_attention', REPLAY_DIFFERS),
  bug('mhsa_kv_cache_loop', 'multihead_self_attention', REPLAY_DIFFERS),
  // Issue 30: mistakes that broke a premise of the probes (state kept, inputs changed, rows or V
  // read in a way the probes' own inputs could not tell apart), each once said something false.
  sdpa('v_reshaped_loop', 'v_reshaped'),
  bug('denominator_not_reset', 'scaled_dot_product_attention', ROWS_SCALED.id, { mayAlsoSay: ['rows_carry_over', OUTPUT_SCALED.id] }),
  sdpa('running_max_from_zero', 'softmax_underflow'),
  // A 1-D mask that masks key 0 masks it for every query: every row, so all the output, is zeros.
  bug('zero_row_key0_masked', 'scaled_dot_product_attention', ROWS_ZERO.id, { mayAlsoSay: ['output_zeros', 'probabilities_wrong'] }),
  // Verdicts that depend on the calls made before (state kept) or on whether a call gets its own
  // copy of the inputs (inputs changed in place): both paths make the same calls in the same
  // order, each on its own copies, so both say the same of them.
  // State keyed on part of the inputs: the graded call met state a fresh replay does not (lib/diagnosis/explain.ts replayDiffers).
  bug('output_buffer_kept', 'scaled_dot_product_attention', REPLAY_DIFFERS, { mayAlsoSay: ['state_kept'] }),
  sdpa('mask_cached_by_shape', REPLAY_DIFFERS),
  sdpa('scale_cached_once', REPLAY_DIFFERS),
  bug('mask_inverted_in_place', 'scaled_dot_product_attention', 'inputs_changed', { breaksMultiHead: true, multiHeadMistake: 'attention_changes_inputs' }),
  // Issue 43: classes once said to be something else (results written at a counter, operands
  // exchanged, a denominator summed over unshifted exps), and multi-head attention taken apart by
  // designed weights, one part wrong in each.
  sdpa('rows_written_at_counter_loop', ROWS_PERMUTED.id),
  sdpa('entries_written_at_counter', 'batch_dims'),
  sdpa('scores_k_q', 'qk_swapped'),
  // Where n_q ≠ n_k its loops read past a row's end: NaN everywhere, even with every score 0.
  bug('scores_k_q_loop', 'scaled_dot_product_attention', 'qk_swapped', { mayAlsoSay: ['nan_before_softmax', 'nan_observed', 'rows_carry_over'] }),
  bug('softmax_denominator_unshifted', 'softmax', ROWS_SCALED.id, { mayAlsoSay: ['softmax_sums', 'softmax_out_of_range', ROWS_ZERO.id, OUTPUT_SCALED.id] }),
  bug('denominator_unshifted_loop', 'scaled_dot_product_attention', ROWS_SCALED.id, { mayAlsoSay: ['output_zeros'] }),
  bug('heads_merge_interleaved_loop', 'multihead_self_attention', 'heads_merged_wrong'),
  bug('heads_merged_no_transpose', 'multihead_self_attention', 'heads_merged_wrong'),
  bug('heads_split_wrong_axis', 'multihead_self_attention', 'heads_wrong'),
  // With one head only, dropping it leaves all zeros: what the output shows is said.
  bug('mhsa_head_dropped_loop', 'multihead_self_attention', 'head_dropped', { mayAlsoSay: [ROWS_ZERO.id] }),
  bug('mhsa_scale_by_dmodel', 'multihead_self_attention', 'heads_scale'),
  bug('mhsa_mask_first_head_only', 'multihead_self_attention', 'heads_ignore_mask'),
  bug('mhsa_mask_ignored_loop', 'multihead_self_attention', 'mhsa_mask_ignored'),
  bug('output_projection_missing_loop', 'multihead_self_attention', 'output_projection_missing'),
  bug('output_projection_transposed_loop', 'multihead_self_attention', 'projection_not_transposed'),
  bug('output_projection_per_head', 'multihead_self_attention', 'output_projection_wrong'),
  bug('v_proj_not_transposed', 'multihead_self_attention', 'projection_wrong'),
  bug('mhsa_v_from_k', 'multihead_self_attention', 'projection_unused'),
  bug('projections_swapped_class', 'multihead_self_attention', 'projections_swapped'),
  // Issue 44: the optional parts' mistakes (tests/diagnosis/partMistakes.ts), graded when their part is on.
  bug('attention_scale_ignored', 'attention', 'attention_scale_ignored', { parts: FORWARD_PARTS }),
  bug('attention_scores_as_weights', 'attention', 'attention_scores_as_weights', { parts: FORWARD_PARTS }),
  bug('attention_masked_rows_uniform', 'attention', 'attention_masked_rows_uniform', { parts: FORWARD_PARTS }),
  bug('single_head_bias_missing', 'single_head_attention', 'single_head_bias_missing', { parts: FORWARD_PARTS }),
  bug('single_head_never_scaled', 'single_head_attention', 'single_head_never_scaled', { parts: FORWARD_PARTS }),
  bug('single_head_projection_not_transposed', 'single_head_attention', 'single_head_projection_not_transposed', { parts: FORWARD_PARTS }),
  bug('mha_output_bias_missing', 'multihead_attention', 'mha_output_bias_missing', { parts: FORWARD_PARTS }),
  bug('mha_weights_averaged', 'multihead_attention', 'mha_weights_averaged', { parts: FORWARD_PARTS }),
  bug('mha_scaled_by_dmodel', 'multihead_attention', 'mha_scaled_by_dmodel', { parts: FORWARD_PARTS }),
];

/** The bugs the switch's cases can grade (gradable): what the catalogue's gradings hold to the suite. */
export const BUGS: readonly CatalogueEntry[] = ALL_BUGS.filter(gradable);
