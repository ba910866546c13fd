/**
 * Which truths each claim may be said of: a claim (a diagnosis's mistake id) fits a mutant when
 * what it says is wrong is where the mutant changed the code (its parts, regions.ts) or how
 * (its operator). Written from what each message asserts, once, before any audit ran; an audit
 * counts the claims said of mutants they do not fit. A claim not listed fits nothing. Changed since
 * only where a run showed the list, not the diagnosis, wrong, and said so in docs/benchmarks.md
 * ("The diagnosis on generated mistakes"): `axis` among the weights' parts (2026-11-29).
 */
import type { Part } from './regions';

export interface Truth {
  operator: string;
  parts: readonly Part[];
  /** Whether the mutant fails a test of scaledDotProductAttention (what attention_broken asserts). */
  attentionFails: boolean;
}

type Fit = (truth: Truth) => boolean;

const within = (...parts: Part[]): Fit => (t) => t.parts.some((p) => parts.includes(p));
const by = (...operators: string[]): Fit => (t) => operators.includes(t.operator);
const either = (...fits: Fit[]): Fit => (t) => fits.some((fit) => fit(t));

/** Where the weights W come from: everything before they multiply V (the axis attention takes its softmax along included). */
const WEIGHTS: Part[] = ['shape', 'batch', 'scores', 'scale', 'mask', 'axis', 'max', 'exp', 'sum', 'normalise', 'empty'];
/** Where an offset can read another entry's or query's numbers. */
const OFFSETS: Part[] = ['shape', 'batch', 'scores', 'mask', 'values', 'output'];
/** Attention's parts but the mask: what a probe without a mask can see go wrong. */
const UNMASKED: Part[] = ['shape', 'batch', 'scores', 'scale', 'max', 'exp', 'sum', 'normalise', 'empty', 'values', 'output'];
/** The multi-head function's own parts. */
const MULTI_HEAD: Part[] = ['mhsa_shape', 'projection', 'split', 'heads', 'merge', 'oproj'];
/** Operators that keep something between calls, or change what the caller passed. */
const STATE = by('KeptState', 'KeyedCache');
const INPUTS = by('InputsInPlace');
/** Operators that put results computed right in the wrong place, or read one index for another. */
const PLACES = by('WrittenElsewhere', 'SwappedIndex', 'WrongIndex', 'SwappedOperands', 'SwappedHeadDims', 'DroppedTranspose');
/** Mutants that compute the same thing in another order: nothing is wrong with them, so no claim fits. */
export const CORRECT_OPERATORS: readonly string[] = ['FloatReorder'];

export const FITS: Readonly<Record<string, Fit>> = {
  // softmax: its stored mistakes (the dim, the whole tensor, the max).
  softmax_wrong_dim: within('axis'),
  softmax_whole_tensor: within('axis', 'sum', 'normalise'),
  // "Overflows … subtract the max before exp": a max not subtracted, or an exp of something else.
  softmax_unstable: within('max', 'exp'),
  softmax_global_max: within('max', 'axis'),
  // What a softmax output shows: its slices' sums, their proportions, a NaN told apart by zeros.
  softmax_sums: within('axis', 'sum', 'normalise', 'exp', 'shape'),
  softmax_not_exp: within('axis', 'exp', 'max', 'sum', 'normalise', 'shape'),
  softmax_out_of_range: within('axis', 'max', 'exp', 'sum', 'normalise'),
  softmax_nan: within('axis', 'max', 'exp', 'sum', 'normalise', 'shape'),
  softmax_state_kept: STATE,
  softmax_inputs_changed: INPUTS,
  causal_off_by_one: within('causal'),
  causal_upper: within('causal'),
  causal_cells: within('causal'),

  // The harness's own: a replay of the graded call that answers otherwise is state.
  answer_changes_when_called_again: STATE,
  // The facts of an output against the expected one (lib/diagnosis/outputFacts.ts), each where such
  // an output comes from: values moved (an index, an offset, a dim of the heads), a factor per row
  // or for all (what divides or multiplies after the scores: the softmax's sum, the output), zeros.
  output_scaled: within('max', 'exp', 'sum', 'normalise', 'empty', 'values', 'output', 'axis', ...MULTI_HEAD),
  output_transposed: either(within('output', 'values', 'shape', 'merge', 'mhsa_shape'), PLACES),
  // A value kept from another row or entry (state) is also what holds what another should.
  entries_permuted: either(within(...OFFSETS, 'split', 'merge', 'heads', 'mhsa_shape'), PLACES, STATE),
  rows_permuted: either(within(...OFFSETS, 'split', 'merge', 'heads', 'mhsa_shape', 'axis'), PLACES, STATE),
  columns_permuted: either(within('values', 'output', 'merge', 'split', 'oproj', 'projection', 'axis'), PLACES),
  rows_scaled: within('max', 'exp', 'sum', 'normalise', 'empty', 'mask', 'values', 'output', 'axis', 'batch', 'shape', ...MULTI_HEAD),
  rows_zero: within(...UNMASKED, 'mask', 'axis', ...MULTI_HEAD),

  // Attention, causes confirmed by undoing them: the part they name.
  // Q and K exchanged, where the scores are made or where the two are handed on (a call's arguments).
  qk_swapped: either(within('scores'), by('SwappedOperands')),
  k_not_transposed: within('scores'),
  k_reshaped: within('scores'),
  v_reshaped: within('values'),
  kv_swapped: within('scores', 'values'),
  output_shape: within('output', 'shape'),
  mask_broadcast: within('mask', 'shape'),
  // "Every dim before the last two is batch-like": how the batch dims are read (the mask's too), or an axis counted from the front.
  batch_dims: either(within('shape', 'batch', 'mask'), by('WrongAxis')),
  // "The others are all zeros: loop over every entry, offsetting …": the loop, or an entry's offsets.
  batch_first_only: within(...OFFSETS),
  // "Changes with where the entry stands: check the loop and the offsets of entry b": an offset, or an index anywhere.
  batch_mixed: either(within(...OFFSETS), by('SwappedIndex', 'WrongIndex')),
  returns_probabilities: within('values', 'output'),

  // Attention, the scale read from the weights.
  scale_missing: within('scale'),
  scale_by_dk: within('scale'),
  scale_by_sqrt_dv: within('scale'),
  scale_rounded: within('scale'),
  // "Scaled by the wrong factor": the scale, or a product of Q and K that is a multiple of the right one.
  scale_wrong: within('scale', 'scores'),
  scale_after_softmax: within('scale', 'normalise', 'values', 'output'),

  // Attention, the mask read from the weights.
  mask_leaks: within('mask'),
  mask_multiplied: within('mask'),
  mask_inverted: within('mask'),
  mask_ignored: within('mask'),
  mask_after_softmax: within('mask', 'empty'),
  mask_minus_100: within('mask'),
  fully_masked_uniform: within('mask', 'empty'),
  // A fully masked row's NaN is its max (−∞ − −∞) as much as its handling: either part.
  fully_masked_nan: within('empty', 'mask', 'max'),

  // Attention, the softmax.
  softmax_over_queries: within('axis', 'max', 'exp', 'sum', 'normalise'),
  // "The weights of V's rows do not sum to 1: divide by the row's sum, scale nothing after": W is what multiplies V.
  // A softmax along another axis than the keys' is what most plainly leaves a query's weights summing to something else.
  rows_not_normalised: within('axis', 'exp', 'sum', 'normalise', 'values', 'output'),
  unstable_softmax: either(within('max'), by('ShiftRemoved')),
  softmax_underflow: within('max'),
  attention_global_max: within('max'),
  // "NaN even when every score is 0 (no mask): a number NaN or undefined, or a softmax dividing 0 by 0".
  nan_observed: within(...UNMASKED),
  nan_before_softmax: within(...UNMASKED),
  // "Either the result never reaches the array you return, or the probabilities are all 0": anywhere.
  output_zeros: () => true,

  // Attention, the premises: a broken one is said of the code that breaks it.
  state_kept: STATE,
  inputs_changed: INPUTS,
  // "A query's output changes with where it stands (no mask): the loop over queries, query i's offsets, a running value".
  rows_carry_over: within(...UNMASKED),
  output_not_pv: within('values', 'output', 'empty'),

  // Observations: what the weights probe saw. W is what multiplies V (a premise): "the weights are
  // not the probabilities" fits any mistake that changes W (before the product or in it), "right" one after it.
  probabilities_wrong: within(...WEIGHTS, 'values', 'output'),
  probabilities_right: within('values', 'output'),

  // Multi-head attention.
  attention_broken: (t) => t.attentionFails,
  attention_changes_inputs: INPUTS,
  mhsa_state_kept: STATE,
  mhsa_inputs_changed: INPUTS,
  mhsa_batch_dims: either(within('mhsa_shape', 'split', 'merge'), by('WrongAxis')),
  heads_interleaved: within('split', 'merge'),
  heads_reshaped: within('split', 'merge'),
  heads_not_split: within('split', 'merge', 'mhsa_shape'),
  heads_order: within('split', 'merge'),
  projection_not_transposed: within('projection', 'oproj'),
  output_projection_missing: within('oproj'),
  projections_swapped: either(within('projection'), by('SwappedOperands', 'SwappedWeight')),
  mhsa_residual: within('oproj', 'merge'),
  // "Each head's scores divided by the wrong number": confirmed with qProj rescaled.
  heads_scale: within('mhsa_shape', 'split', 'heads', 'projection'),
  // By design (multiHeadDesign.ts): one head live at a time, oProj or the projections the identity.
  head_dropped: either(within('mhsa_shape', 'split', 'heads', 'merge'), by('LoopBound')),
  heads_merged_wrong: within('merge', 'mhsa_shape', 'split'),
  heads_ignore_mask: within('heads', 'mask'),
  // The oProj step, or a projection helper it shares with the others.
  output_projection_wrong: within('oproj', 'merge', 'projection'),
  projection_wrong: within('projection', 'split'),
  heads_wrong: within(...MULTI_HEAD),
  heads_together_wrong: either(within(...MULTI_HEAD), STATE),
  // "Does not change with a weight: its projection never reaches the output (project, then split those)".
  // Or a buffer kept and shared, so that one projection overwrites another (state).
  projection_unused: either(within('projection', 'split', 'heads'), STATE),
  mhsa_mask_ignored: within('heads', 'mask'),
};

/**
 * Whether a diagnosis fits: 'a|b' (the same output, either cause) when one of them fits, 'a+b'
 * (both show) when each does.
 */
export function fits(mistake: string, truth: Truth): boolean {
  if (CORRECT_OPERATORS.includes(truth.operator)) return false;
  return mistake.split('+').every((alternatives) => alternatives.split('|').some((id) => FITS[id]?.(truth) ?? false));
}
