/**
 * Which truths each claim may be said of: a claim (a diagnosis's mistake id) fits a mutant when
 * what it says is wrong is where the mutant changed the code (its parts, regions.ts) or how
 * (its operator). Written from what each message asserts, once, before any audit ran; an audit
 * counts the claims said of mutants they do not fit. A claim not listed fits nothing.
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

/** Where the weights W come from: everything before they multiply V. */
const WEIGHTS: Part[] = ['shape', 'batch', 'scores', 'scale', 'mask', 'max', 'exp', 'sum', 'normalise', 'empty'];
/** Where an offset can read another entry's or query's numbers. */
const OFFSETS: Part[] = ['shape', 'batch', 'scores', 'mask', 'values', 'output'];
/** Attention's parts but the mask: what a probe without a mask can see go wrong. */
const UNMASKED: Part[] = ['shape', 'batch', 'scores', 'scale', 'max', 'exp', 'sum', 'normalise', 'empty', 'values', 'output'];
/** The multi-head function's own parts. */
const MULTI_HEAD: Part[] = ['mhsa_shape', 'projection', 'split', 'heads', 'merge', 'oproj'];
/** Operators that keep something between calls, or change what the caller passed. */
const STATE = by('KeptState');
const INPUTS = by('InputsInPlace');

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

  // Attention, causes confirmed by undoing them: the part they name.
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
  fully_masked_nan: within('empty', 'mask'),

  // Attention, the softmax.
  softmax_over_queries: within('axis', 'max', 'exp', 'sum', 'normalise'),
  // "The weights of V's rows do not sum to 1: divide by the row's sum, scale nothing after": W is what multiplies V.
  rows_not_normalised: within('exp', 'sum', 'normalise', 'values', 'output'),
  unstable_softmax: within('max'),
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
  projections_swapped: within('projection'),
  mhsa_residual: within('oproj', 'merge'),
  // "Times a constant": any of its own parts, or attention's output scaled.
  mhsa_scaled: within(...MULTI_HEAD, 'values', 'output'),
  // "Does not change with a weight: its projection never reaches the output (project, then split those)".
  projection_unused: within('projection', 'split', 'heads'),
  mhsa_mask_ignored: within('heads', 'mask'),
};

/**
 * Whether a diagnosis fits: 'a|b' (the same output, either cause) when one of them fits, 'a+b'
 * (both show) when each does.
 */
export function fits(mistake: string, truth: Truth): boolean {
  return mistake.split('+').every((alternatives) => alternatives.split('|').some((id) => FITS[id]?.(truth) ?? false));
}
