/**
 * The known mistakes of the optional parts' functions (tests/parts.ts), in the course's words
 * (seeds 000–002: Problems 2 and 3, Project 4). Each changes the output in one fixed way, as the
 * softmax and causal-mask mistakes do: the fixture generator runs the reference with the mistake
 * applied (reference/mistakes.ts) and stores the first part it gets wrong on each case, and a
 * failing output is compared with that (diagnose.ts matchStored): the match is the measurement.
 */
/** A mistake as catalogue.ts's Mistake holds one (restated: catalogue.ts imports this file). */
interface PartMistake {
  id: string;
  fn: string;
  message: string;
}

export const PART_MISTAKES: readonly PartMistake[] = [
  { id: 'attention_scale_ignored', fn: 'attention',
    message: "Your attention divides the scores by √d_k even when called with scale: false, which asks for Problem 2's unscaled attention, softmax(Q Kᵀ) V: scale only when scale is true (the default)." },
  { id: 'attention_scores_as_weights', fn: 'attention',
    message: 'Your weights are the scores, not their softmax: return the attention weights, softmax(Q Kᵀ / √d_k) with masked keys at 0, the very matrix you multiply V with.' },
  { id: 'attention_masked_rows_uniform', fn: 'attention',
    message: 'A query whose keys are all masked gets equal weights on every key, and so the plain average of V, instead of zeros: a finite fill (−1e9) makes its keys equally likely. Fill with −∞, then set the NaN weights of such a row to 0 (Project 4 handles the NaN that way).' },

  { id: 'single_head_bias_missing', fn: 'single_head_attention',
    message: 'Your projections leave out the biases: each is nn.Linear(n_embd, n_embd) with its bias, so Q = x qProjᵀ + qBias, and K and V alike.' },
  { id: 'single_head_never_scaled', fn: 'single_head_attention',
    message: "Your scores are never scaled: Problem 3 divides them by √d_k (d_k = n_embd, one head) unless scale is false; only Problem 2's SimpleAttention (scale: false) leaves them unscaled." },
  { id: 'single_head_projection_not_transposed', fn: 'single_head_attention',
    message: 'Your projections compute x W + b instead of x Wᵀ + b: the weights are [out, in] like nn.Linear, so project with x.matmul(W.transpose(-2, -1)).add(b).' },

  { id: 'mha_output_bias_missing', fn: 'multihead_attention',
    message: 'Your output projection leaves out oBias: the output is the concatenated heads times oProjᵀ, plus oBias, like nn.Linear(d_model, d_model).' },
  { id: 'mha_weights_averaged', fn: 'multihead_attention',
    message: "Your weights are averaged over the heads, [..., seq, seq], as nn.MultiheadAttention returns them by default: return every head's weights, [..., numHeads, seq, seq]." },
  { id: 'mha_scaled_by_dmodel', fn: 'multihead_attention',
    message: "Your scores are scaled by √d_model: each head attends over its own d_head = d_model / numHeads features, so scale by √d_head (the head's q.size(-1))." },
];
