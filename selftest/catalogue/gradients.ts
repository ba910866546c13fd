/**
 * The gradients part's catalogue: correct backward passes written other ways, and the realistic
 * mistakes of a backward pass, each in one function (the other functions are a correct
 * solution's). selftest/gradients/catalogue.test.ts holds the part's cases and diagnosis to it:
 * every correct one gets full marks; every bug loses points on its own function's tests only, and
 * is named as its mistake (tests/diagnosis/backwardMistakes.ts), in npm test's path and the
 * grader's alike, and never as another.
 */
import path from 'node:path';

export type GradientFunction = 'softmax_backward' | 'scaled_dot_product_attention_backward';

export interface GradientEntry {
  name: string;
  file: string;
  /** The function the mistake is in; undefined for a correct solution. */
  breaks?: GradientFunction;
  /** The mistake its failing tests must name. */
  mistake?: string;
  /** Observations a failing test may carry besides the mistake, each true of this bug. */
  mayAlsoSay?: readonly string[];
}

const bug = (name: string, breaks: GradientFunction, mistake: string, more: Partial<GradientEntry> = {}): GradientEntry =>
  ({ name, file: path.join(__dirname, 'bugs', `${name}.ts`), breaks, mistake, ...more });

export const GRADIENT_CORRECT: readonly GradientEntry[] = [
  { name: 'reference', file: path.join(__dirname, '..', '..', 'reference', 'index.ts') },
  { name: 'backward_tensor_methods', file: path.join(__dirname, 'bugs', 'backward_base.ts') },
  { name: 'backward_float32_loops', file: path.join(__dirname, 'bugs', 'backward_loops.ts') },
];

const ATTENTION = 'scaled_dot_product_attention_backward';

export const GRADIENT_BUGS: readonly GradientEntry[] = [
  // Where the gradient is not y ⊙ dy (never on a masked slice's zeros alone), the shift still moves it.
  bug('softmax_backward_no_correction', 'softmax_backward', 'softmax_backward_no_correction', { mayAlsoSay: ['softmax_backward_shift_moves'] }),
  bug('softmax_backward_last_dim_loop', 'softmax_backward', 'softmax_backward_wrong_dim', { mayAlsoSay: ['softmax_backward_shift_moves'] }),
  bug('backward_no_correction', ATTENTION, 'backward_softmax_correction'),
  bug('backward_dq_unscaled', ATTENTION, 'backward_scale_missing'),
  bug('backward_dk_unscaled_loop', ATTENTION, 'backward_scale_missing'),
  bug('backward_dk_untransposed', ATTENTION, 'backward_dk_untransposed'),
  bug('backward_dv_untransposed', ATTENTION, 'backward_dv_untransposed'),
  bug('backward_mask_ignored', ATTENTION, 'backward_mask_ignored'),
  bug('backward_batch_summed_loop', ATTENTION, 'backward_batch_summed'),
];
