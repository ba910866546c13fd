/**
 * The known mistakes of the gradients part (adapters/gradients.ts): what a failing backward test
 * names when a counterfactual run of the student's own function confirms it (backward.ts), or,
 * marked `observation`, only what the probes measured. Apart from catalogue.ts's list, as the part
 * is apart from the default assignment; tests/diagnosis/diagnose.ts hands both to the harness.
 */
import type { Cause } from '../../lib/diagnosis/explain';

export interface BackwardMistake extends Cause {
  fn: 'softmax_backward' | 'scaled_dot_product_attention_backward';
}

const SOFTMAX = 'softmax_backward';
const ATTENTION = 'scaled_dot_product_attention_backward';

export const BACKWARD_MISTAKES: readonly BackwardMistake[] = [
  { id: 'softmax_backward_no_correction', fn: SOFTMAX,
    message: "Your gradient is y ⊙ dy: the softmax's Jacobian is diag(y) − y yᵀ, so subtract each slice's Σ(dy ⊙ y) along dim first, dx = y ⊙ (dy − Σ(dy ⊙ y)). That term is why adding the same number to every dy along dim moves no gradient." },
  { id: 'softmax_backward_wrong_dim', fn: SOFTMAX,
    message: "Your gradient sums Σ(dy ⊙ y) along the last dim, not along `dim`: take the sum along dim with keepdim (dy.mul(y).sum(dim, true)), stepping along dim by its stride in a loop." },
  { id: 'softmax_backward_shift_moves', fn: SOFTMAX, observation: true,
    message: 'Your gradient changes when the same number is added to every dy along dim, which cannot change a softmax\'s gradient (its outputs along dim sum to 1): check the Σ(dy ⊙ y) you subtract, and that it is summed along dim.' },

  { id: 'backward_scale_missing', fn: ATTENTION,
    message: 'The 1/√d_k of the scores is missing from this gradient: S = Q Kᵀ / √d_k, so the chain rule gives dQ = dS K / √d_k and dK = dSᵀ Q / √d_k.' },
  { id: 'backward_softmax_correction', fn: ATTENTION,
    message: "Your dS is not the softmax's gradient: dS = P ⊙ (dP − Σ(P ⊙ dP) over the keys), and the subtracted row sum is what makes adding the same vector to every row of V (the same number to every score's dP) change no gradient. Dropping it (dS = P ⊙ dP) is the usual cause." },
  { id: 'backward_dk_untransposed', fn: ATTENTION,
    message: 'Your dK is computed from dS, not dSᵀ: dK has one row per key, dK = dSᵀ Q / √d_k (dS.transpose(-2, -1).matmul(Q)); dS Q has one row per query and only fits when n_q = n_k.' },
  { id: 'backward_dv_untransposed', fn: ATTENTION,
    message: 'Your dV is P dOut, not Pᵀ dOut: dV has one row per key, dV = Pᵀ dOut (P.transpose(-2, -1).matmul(dOut)); P dOut has one row per query and only fits when n_q = n_k.' },
  { id: 'backward_mask_ignored', fn: ATTENTION,
    message: 'Your backward pass ignores the mask, so gradient reaches masked positions: recompute P exactly as the forward pass did (−∞ where mask == 0, fully masked rows 0), so that P = 0 there and dS = P ⊙ (…) passes nothing to a masked key or a fully masked query.' },
  { id: 'backward_batch_summed', fn: ATTENTION,
    message: "Your gradients of different batch entries are added together: every batch entry has its own Q, K and V, so each entry's dQ, dK and dV come from that entry alone (start each entry's sums at 0, at that entry's offset), unlike a weight's gradient, which sums over the batch." },
  { id: 'backward_part_scaled', fn: ATTENTION, observation: true,
    message: 'One of your gradients is the expected one times a constant: check the scale of that gradient (1/√d_k, once, on dQ and dK; none on dV).' },
  { id: 'backward_parts_wrong', fn: ATTENTION, observation: true,
    message: 'Some of your gradients are wrong and others right: the right ones share what they are computed from (P, and for dQ and dK the score gradient dS), so look first at what only the wrong ones do.' },
];

export const backwardMessageOf = (id: string): string => BACKWARD_MISTAKES.find((m) => m.id === id)!.message;
