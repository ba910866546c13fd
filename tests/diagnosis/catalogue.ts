/**
 * The known mistakes: what a failing test names when the evidence shows one. Messages use the
 * course's words (seeds 000–004 and their "common pitfalls").
 *
 * Attention and multi-head mistakes are found by probing: the diagnosis calls the student's own
 * function again on inputs derived from the case (attention.ts, multiHead.ts) and adds what it
 * measured to the message. Softmax and causal-mask mistakes change the output in one fixed way: the
 * fixture generator runs the reference with the mistake applied (reference/mistakes.ts) and stores
 * its output on each case, and a failing output is compared with those; `recognise` reads an error
 * or where a NaN is instead.
 */
import type { GradedFunction } from '../../lib/assignment/cases';
import { PART_MISTAKES } from './partMistakes';
import { INPUTS_CHANGED_FIX } from './words';
import { matmulWithUntransposedK, softmaxGlobalMax, softmaxOverflow, type Recogniser } from './signatures';

export interface Mistake {
  id: string;
  fn: GradedFunction;
  /** One or two sentences: what the code does, and the fix. */
  message: string;
  recognise?: Recogniser;
  /** Named from a measurement that many different codes produce (a wrong constant…), rather than one bug. */
  generic?: boolean;
  /**
   * No cause at all: only what a probe saw, true of any code that answers the probe this way. Said
   * where no cause shows, so any failing test may carry one.
   */
  observation?: true;
  /** A failure that only follows from another function's: reports set it apart. */
  knockOn?: true;
}

const SOFTMAX: readonly Mistake[] = [
  { id: 'softmax_wrong_dim', fn: 'softmax',
    message: 'Your output is the softmax along the last dim, not along the dim it was given (it matches that output on this case): take the max and the sum along `dim` (x.max(dim, true), e.sum(dim, true)).' },
  { id: 'softmax_whole_tensor', fn: 'softmax',
    message: 'Your output is each exp divided by the sum over the whole tensor (it matches that output on this case), not over its own slice along dim: sum along `dim` with keepdim (e.sum(dim, true)) so that every slice along dim sums to 1.' },
  { id: 'softmax_unstable', fn: 'softmax', recognise: softmaxOverflow,
    message: 'Your softmax gives NaN exactly where exp of the input overflows (Infinity/Infinity is NaN), and is right on the same input with each slice shifted so that its max is 0, and again 30: subtract the max along dim before exp; the result is the same and exp never overflows.' },
  { id: 'softmax_global_max', fn: 'softmax', recognise: softmaxGlobalMax,
    message: "Your softmax gives NaN exactly in the slices where every exp of x minus the whole tensor's max underflows to 0 (0/0 is NaN), and is right on the same input with every slice given one same max (0, and again 30): subtract each slice's own max, x.max(dim, true), not the whole tensor's." },
  { id: 'softmax_sums', fn: 'softmax', generic: true, observation: true,
    message: 'Your softmax\'s values along dim do not all sum to 1, as each slice along dim must: each value is the exp of its x divided by the sum of the exps of its own slice along dim.' },
  { id: 'softmax_not_exp', fn: 'softmax', generic: true, observation: true,
    message: "Your softmax's slices along dim sum to 1, but not in the proportions of exp(x): within a slice, p_i / p_j must be exp(x_i − x_j)." },
  { id: 'softmax_out_of_range', fn: 'softmax', generic: true, observation: true,
    message: 'Your softmax gives NaN or Infinity on these inputs but not on an all-zero input, where every exp is 1: on these inputs a value it computes leaves the range of floats.' },
  { id: 'softmax_nan', fn: 'softmax', generic: true, observation: true,
    message: 'Your softmax gives NaN even on an all-zero input, where every exp is 1: the NaN does not come from the range of exp.' },
  { id: 'softmax_state_kept', fn: 'softmax', generic: true,
    message: 'Calling your softmax with the same inputs gives different outputs depending on what was called before: something outlives the call (a buffer, a running sum, a cache). Create every buffer and running value inside the function, afresh for each call.' },
  { id: 'softmax_inputs_changed', fn: 'softmax', generic: true,
    message: `Your softmax changes the tensor it is given. ${INPUTS_CHANGED_FIX}` },
];

const ATTENTION: readonly Mistake[] = [
  { id: 'k_not_transposed', fn: 'scaled_dot_product_attention', recognise: matmulWithUntransposedK,
    message: "Your scores multiply Q by K itself: don't forget to transpose K when computing scores, Q.matmul(K.transpose(-2, -1)) gives [..., n_q, n_k]." },
  { id: 'k_reshaped', fn: 'scaled_dot_product_attention',
    message: "Your scores read K as [..., d_k, n_k] in row-major order, a reshape, not a transpose: score[i][j] is the dot product of query i with key j, K's row j (K.transpose(-2, -1), or index K[j][c] in a loop)." },
  { id: 'v_reshaped', fn: 'scaled_dot_product_attention',
    message: "Your output reads V as [..., d_v, n_k] in row-major order, a reshape, not V itself: the output is the probabilities times V, out[i][c] = Σ_j p[i][j]·V[j][c], with V's row j at offset j·d_v of its batch entry." },
  { id: 'kv_swapped', fn: 'scaled_dot_product_attention',
    message: 'Your attention uses V where K belongs and K where V belongs: the scores are Q Kᵀ (queries against keys), and the output is the probabilities times V.' },
  { id: 'qk_swapped', fn: 'scaled_dot_product_attention',
    message: "Your scores are K Qᵀ, not Q Kᵀ: score[i][j] is query i's row of Q times key j's row of K, Q.matmul(K.transpose(-2, -1)), of shape [..., n_q, n_k]." },
  { id: 'output_shape', fn: 'scaled_dot_product_attention',
    message: "Your output has the right values in the wrong shape: return [...batch, n_q, d_v], with Q's batch dims kept as they are (reshape the result back if you flattened them)." },
  { id: 'mask_leaks', fn: 'scaled_dot_product_attention', generic: true, observation: true,
    message: 'Keys your mask hides get weight: with V = identity (the case\'s Q, K and mask), where attention returns its probabilities, your function gives them more than 0. A masked key\'s probability must be exactly 0 (its score −∞ before the softmax).' },
  { id: 'mask_multiplied', fn: 'scaled_dot_product_attention',
    message: 'Your masked keys get the weight a score of 0 gets, not 0 (read with V = identity, where attention returns its probabilities): a masked key\'s score must be −∞ before the softmax (fill the scores where mask == 0 with −∞, maskedFill), so that its probability is exactly 0.' },
  { id: 'nan_observed', fn: 'scaled_dot_product_attention', generic: true, observation: true,
    message: 'Your output has NaN even when every score is 0 (Q and K all zeros, no mask), where exp cannot overflow: on those inputs the NaN does not come from the range of exp.' },
  { id: 'mask_broadcast', fn: 'scaled_dot_product_attention',
    message: "Your code does not broadcast the mask: a mask with fewer dims than the scores, or with size-1 dims ([n_q, n_k], [B, 1, n_q, n_k], [n_k]), applies to every batch entry, query or key it stretches over. Align its dims with the scores' from the right, missing dims in front, and let each size-1 dim stretch (as maskedFill does)." },
  { id: 'batch_dims', fn: 'scaled_dot_product_attention',
    message: 'Your code goes wrong with more than one batch dim, and is right with them flattened into one: every dim before the last two is batch-like, and each entry is computed alike (negative dims such as K.transpose(-2, -1) and a matmul that broadcasts read them all).' },
  { id: 'batch_first_only', fn: 'scaled_dot_product_attention',
    message: 'Only the first batch entry comes out right, the others are all zeros: loop over every batch entry (the product of all dims before the last two), offsetting Q, K, V, the mask and the output by the entry.' },
  { id: 'batch_mixed', fn: 'scaled_dot_product_attention', generic: true, observation: true,
    message: "Given the batch entries in reverse order, your function does not return its entries reversed: an entry's output depends on the other entries or on where it stands, which attention's never does (each entry comes from its own Q, K, V and mask only)." },
  { id: 'attention_global_max', fn: 'scaled_dot_product_attention',
    message: "Your attention's softmax subtracts the max of all the scores, not each query's own row max: a query whose scores sit far below the largest (here thousands apart) has every exp underflow to 0, so its row is 0/0 = NaN (or zeros once NaN is cleared). Subtract scores.max(-1, true)." },
  { id: 'nan_before_softmax', fn: 'scaled_dot_product_attention',
    message: 'Your output is NaN everywhere, even when every score is 0 (Q and K all zeros, no mask), where exp cannot overflow: the NaN does not come from the range of exp.' },
  { id: 'fully_masked_nan', fn: 'scaled_dot_product_attention',
    message: 'Your output is NaN in the queries whose keys are all masked, and only there: such a query must output zeros. After −∞ masking its softmax is 0/0; set those probabilities (or rows) to 0 after the softmax.' },
  { id: 'softmax_underflow', fn: 'scaled_dot_product_attention',
    message: "Your attention's softmax underflows: the number it subtracts before exp is above a query's scores (a running max that starts at 0, say), so for a query whose scores are all far below it every exp is 0, and 0/0 is NaN (or zeros once NaN is cleared). Subtract each row's own max: start a running max at −∞, or at the row's first score." },
  { id: 'unstable_softmax', fn: 'scaled_dot_product_attention',
    message: "Your attention's softmax overflows on large scores: exp of a score near 1024 is Infinity, so the row turns to NaN (or to zeros once NaN is cleared). Subtract each row's max from the scores before exp." },
  { id: 'output_zeros', fn: 'scaled_dot_product_attention',
    message: 'Your output is all zeros, where attention\'s is not.' },
  { id: 'returns_probabilities', fn: 'scaled_dot_product_attention',
    message: 'Your output has the shape of the attention probabilities [..., n_q, n_k]: the output is the probabilities times V, [..., n_q, d_v].' },
  { id: 'scale_missing', fn: 'scaled_dot_product_attention',
    message: 'Your scores are not scaled: divide them by √d_k before the softmax, softmax(Q Kᵀ / √d_k) V.' },
  { id: 'scale_by_dk', fn: 'scaled_dot_product_attention',
    message: 'Your scores are divided by d_k: the scale is 1/√d_k (d_k ** -0.5), not 1/d_k.' },
  { id: 'scale_by_sqrt_dv', fn: 'scaled_dot_product_attention',
    message: "Your scores are scaled by √d_v: d_k is the last dim of the query/key tensors, not of V. Get it from Q's shape, don't hardcode it." },
  { id: 'scale_rounded', fn: 'scaled_dot_product_attention',
    message: 'Your scale uses a whole-number √d_k (Math.floor or Math.round): it is right only when d_k is a perfect square. Use Math.sqrt(d_k) as it is.' },
  { id: 'scale_wrong', fn: 'scaled_dot_product_attention', generic: true,
    message: "Your scores are scaled by the wrong factor: divide by √d_k, with d_k the last dim of Q (don't hardcode it)." },
  { id: 'scale_after_softmax', fn: 'scaled_dot_product_attention',
    message: 'Your probabilities are scaled by 1/√d_k after the softmax: scale BEFORE softmax (not after!), so that the probabilities still sum to 1.' },
  { id: 'state_kept', fn: 'scaled_dot_product_attention', generic: true,
    message: 'Calling your attention with the same inputs gives different outputs depending on what was called before: something outlives the call (a buffer, a running sum, a cache). Create every buffer and running value inside the function, afresh for each call.' },
  { id: 'inputs_changed', fn: 'scaled_dot_product_attention',
    message: `Your scaledDotProductAttention changes the tensors it is given. ${INPUTS_CHANGED_FIX}` },
  { id: 'rows_carry_over', fn: 'scaled_dot_product_attention', generic: true, observation: true,
    message: "Given the queries in reverse order (no mask), your function does not return its rows reversed: a query's output depends on the other queries or on where it stands, which attention's never does (each query's output comes from its own row of Q and all of K and V)." },
  { id: 'output_not_pv', fn: 'scaled_dot_product_attention', generic: true, observation: true,
    message: "With V = identity your function returns weights W, but with the case's V its output is not W·V: attention's output is its weights times V, whatever V holds." },
  { id: 'probabilities_wrong', fn: 'scaled_dot_product_attention', generic: true, observation: true,
    message: "Your attention's weights are not its probabilities: with V = identity, where attention returns its probabilities (softmax(Q Kᵀ / √d_k), masked keys at 0), yours returns other weights for V's rows." },
  { id: 'probabilities_right', fn: 'scaled_dot_product_attention', generic: true, observation: true,
    message: "Your attention's probabilities are right: with V = identity your function returns softmax(Q Kᵀ / √d_k) with masked keys at 0, as it should, yet with the case's own V its output is wrong." },
  { id: 'rows_not_normalised', fn: 'scaled_dot_product_attention', generic: true, observation: true,
    message: "The weights your attention gives V's rows (its output with V = identity, where attention returns its probabilities) do not sum to 1 over a query's keys, as a softmax's do." },
  { id: 'softmax_over_queries', fn: 'scaled_dot_product_attention',
    message: "Your weights (read with V = identity) sum to 1 down each key's column, over the queries, and follow a softmax of the scores along it: your softmax normalises over the queries (dim -2). Apply it on the last dimension (dim=-1), across the keys." },
  { id: 'mask_inverted', fn: 'scaled_dot_product_attention',
    message: 'Your mask is inverted: 1 means the query may attend to that key and 0 means it must not, so fill the scores where mask == 0 with −∞.' },
  { id: 'mask_ignored', fn: 'scaled_dot_product_attention',
    message: 'Your attention ignores the mask: fill the scores where mask == 0 with −∞ before the softmax.' },
  { id: 'mask_after_softmax', fn: 'scaled_dot_product_attention',
    message: "Your weights for the allowed keys (read with V = identity) are the same with the mask as without it, so they no longer sum to 1 where keys are masked: the masked keys are set to 0 after the softmax. Mask the scores (−∞) BEFORE the softmax, so it renormalises over the allowed keys." },
  { id: 'fully_masked_uniform', fn: 'scaled_dot_product_attention',
    message: 'A query whose keys are all masked outputs the plain average of V (each key weighted 1/n_k) where it must output zeros. Fill masked scores with −∞, then set the rows that became NaN to 0.' },
  { id: 'mask_minus_100', fn: 'scaled_dot_product_attention',
    message: 'Your masked keys get the weight of a finite score (read with V = identity, where attention returns its probabilities), not 0, and a query whose keys are all masked averages V: fill masked scores with −∞ (exact masking), then set the rows that became NaN to 0.' },
];

const CAUSAL: readonly Mistake[] = [
  { id: 'causal_off_by_one', fn: 'causal_mask',
    message: 'Your mask hides the diagonal: position i sees positions ≤ i, itself included (the lower triangle with its diagonal, like torch.tril), not only < i.' },
  { id: 'causal_upper', fn: 'causal_mask',
    message: 'Your mask lets each query see the future: it is the upper triangle, the reverse mask (the causal mask transposed, 1 where key ≥ query). Use the lower triangle, 1 where key ≤ query (torch.tril).' },
  { id: 'causal_cells', fn: 'causal_mask', generic: true, observation: true,
    message: 'Your mask is wrong in places: causalMask(n)[i][j] is 1 exactly when key j ≤ query i (each position sees itself and the past), 0 elsewhere.' },
];

const MULTI_HEAD: readonly Mistake[] = [
  { id: 'attention_broken', fn: 'multihead_self_attention', knockOn: true,
    message: 'Your scaledDotProductAttention fails its own tests: multi-head attention that calls it (the usual way) cannot pass before it does, so fix it first (npm test -- -t scaled_dot_product), then run this test again.' },
  { id: 'mhsa_batch_dims', fn: 'multihead_self_attention',
    message: 'Your multi-head attention fails with more than one batch dim: take seq and dModel from the last two dims of x and keep every leading dim when you split heads (reshape(...batch, seq, numHeads, dHead), transpose(-3, -2)).' },
  { id: 'heads_interleaved', fn: 'multihead_self_attention',
    message: 'Your heads take every numHeads-th feature instead of contiguous blocks: split as [..., seq, numHeads, dHead] then transpose(-3, -2), so head h gets features h·dHead … (h+1)·dHead − 1.' },
  { id: 'heads_reshaped', fn: 'multihead_self_attention',
    message: 'Your heads are split by a plain reshape to [..., numHeads, seq, dHead], which mixes positions and features: reshape to [..., seq, numHeads, dHead], then transpose(-3, -2) (and the reverse to merge them).' },
  { id: 'heads_not_split', fn: 'multihead_self_attention',
    message: 'Your output does not depend on numHeads, as if the heads were never split: split the projections into numHeads heads of dModel / numHeads features, attend per head, then concatenate them.' },
  { id: 'projection_not_transposed', fn: 'multihead_self_attention',
    message: 'Your projections compute x W instead of x Wᵀ: the weights are [out, in] like nn.Linear, so project with x.matmul(W.transpose(-2, -1)).' },
  { id: 'output_projection_missing', fn: 'multihead_self_attention',
    message: 'Your output does not use oProj: apply the output projection (x Wᵀ) after concatenating the heads.' },
  { id: 'projections_swapped', fn: 'multihead_self_attention',
    message: 'Your queries are projected with kProj and your keys with qProj: Q = x qProjᵀ, K = x kProjᵀ.' },
  { id: 'heads_order', fn: 'multihead_self_attention',
    message: 'Your heads are concatenated in another order than they were split: head h must take features h·dHead … (h+1)·dHead − 1 of the projections and give back the same block of the concatenation (transpose(-3, -2) then reshape, both ways).' },
  { id: 'mhsa_residual', fn: 'multihead_self_attention',
    message: 'Your output is x plus the expected output: this multi-head attention has no residual connection (that belongs to the transformer block around it). Return the output projection of the concatenated heads only.' },
  { id: 'projection_unused', fn: 'multihead_self_attention', generic: true,
    message: 'Your output does not change when a projection weight changes: what you project with it never reaches the output. Project x with each of qProj, kProj and vProj (x Wᵀ), and attend with the heads split from those projections.' },
  { id: 'mhsa_state_kept', fn: 'multihead_self_attention', generic: true,
    message: 'Calling your multi-head attention with the same inputs gives different outputs depending on what was called before: something outlives the call (a buffer, a running sum, a cache). Create every buffer and running value inside the function, afresh for each call.' },
  { id: 'mhsa_inputs_changed', fn: 'multihead_self_attention', generic: true,
    message: `Your multiHeadSelfAttention changes the tensors it is given. ${INPUTS_CHANGED_FIX}` },
  { id: 'attention_changes_inputs', fn: 'multihead_self_attention',
    message: `Your scaledDotProductAttention changes the mask it is given: multi-head attention that hands it one mask for every head gives each head after the first a changed mask. ${INPUTS_CHANGED_FIX}` },
  { id: 'heads_scale', fn: 'multihead_self_attention',
    message: "Your heads' scores are scaled by the wrong factor: each head's attention divides its scores by √d_head, d_head = dModel / numHeads being the last dim of the head's Q and K (the scaled dot-product attention of each head computes it from its own inputs)." },
  { id: 'head_dropped', fn: 'multihead_self_attention',
    message: 'A head adds nothing to your output: every head, 0 to numHeads − 1, is attended and concatenated before the output projection.' },
  { id: 'heads_merged_wrong', fn: 'multihead_self_attention',
    message: "Your heads' outputs are right but land in other places of the concatenation, before the output projection: head h's output for position s must become features h·dHead … (h+1)·dHead − 1 of position s (from [..., numHeads, seq, dHead]: transpose(-3, -2), then reshape to [..., seq, dModel])." },
  { id: 'heads_ignore_mask', fn: 'multihead_self_attention',
    message: 'Some of your heads ignore the mask: the same mask applies to every head (pass it to the attention of each head, as given).' },
  { id: 'output_projection_wrong', fn: 'multihead_self_attention',
    message: 'What you do with oProj is wrong: the output is the concatenated heads times oProjᵀ (x Wᵀ, like nn.Linear, no bias), applied once after the concatenation.' },
  { id: 'projection_wrong', fn: 'multihead_self_attention',
    message: 'What your function does with that projection weight is wrong: each of qProj, kProj and vProj is used once, to project x into Q, K and V respectively (x Wᵀ, like nn.Linear, no bias).' },
  { id: 'heads_wrong', fn: 'multihead_self_attention', generic: true, observation: true,
    message: "Your heads' outputs are not attention's: each head h attends with features h·dHead … (h+1)·dHead − 1 of Q, K and V, and gives back that block of the concatenation." },
  { id: 'heads_together_wrong', fn: 'multihead_self_attention', generic: true, observation: true,
    message: 'Each of your heads is right on its own, but not with the others at work: no head may read or change what another head computes.' },
  { id: 'mhsa_mask_ignored', fn: 'multihead_self_attention',
    message: 'Your multi-head attention ignores the mask: pass it on to the scaled dot-product attention of every head.' },
];

export const MISTAKES: readonly Mistake[] = [...SOFTMAX, ...ATTENTION, ...CAUSAL, ...MULTI_HEAD, ...PART_MISTAKES];

/** Functions whose failures are diagnosed by probing; the others by their stored mistake outputs. */
export const diagnosedByProbing = (fn: GradedFunction): boolean =>
  fn === 'scaled_dot_product_attention' || fn === 'multihead_self_attention';

/** Whether a diagnosis's ids ('a|b', 'a+b') are all observations: what probes saw, no cause named. */
export const isObservation = (mistake: string): boolean =>
  mistake.split(/[|+]/).every((id) => MISTAKES.find((m) => m.id === id)?.observation === true);

export const mistakesOf = (fn: GradedFunction): Mistake[] => MISTAKES.filter((m) => m.fn === fn);
