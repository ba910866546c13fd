/**
 * The reference's softmax, causal mask and the optional parts' functions with one known mistake
 * applied (ids from tests/diagnosis/catalogue.ts and partMistakes.ts). The fixture generator runs each on every case of its function, in
 * float64, and stores the finite outputs that differ from the expected one: these mistakes change
 * the output in one fixed way, so a failing output is compared with them (attention and multi-head
 * mistakes are found by probing instead). Never shipped to students.
 */
import { Tensor } from '../lib/tensor';
import * as reference from './index';
import { attention, multiHeadAttention, singleHeadAttention, softmax, type AttentionOptions, type SingleHeadWeights } from './index';

/** The reference's exports: a variant replaces one of them. */
export type Implementation = typeof reference;

const causalWith =
  (keep: (key: Tensor, query: Tensor) => Tensor): Implementation['causalMask'] =>
  (seqLen) => keep(Tensor.arange(seqLen).reshape(1, seqLen), Tensor.arange(seqLen).reshape(seqLen, 1));

/** Each mistake's variant: the one graded function it changes, by its export. */
export const MISTAKE_VARIANTS: Record<string, Partial<Implementation>> = {
  softmax_wrong_dim: { softmax: (x) => softmax(x, -1) },
  softmax_whole_tensor: {
    softmax: (x, dim) => {
      const e = x.sub(x.max(dim, true)).exp();
      return e.div(e.sum());
    },
  },
  softmax_global_max: {
    softmax: (x, dim) => {
      const e = x.sub(x.max()).exp();
      return e.div(e.sum(dim, true));
    },
  },
  softmax_unstable: {
    softmax: (x, dim) => {
      const e = x.exp();
      return e.div(e.sum(dim, true));
    },
  },

  causal_off_by_one: { causalMask: causalWith((key, query) => key.lt(query)) },
  causal_upper: { causalMask: causalWith((key, query) => key.ge(query)) },

  attention_scale_ignored: { attention: (Q, K, V, options = {}) => attention(Q, K, V, { ...options, scale: true }) },
  attention_scores_as_weights: {
    attention: (Q, K, V, options: AttentionOptions = {}) => {
      const { output, weights } = attention(Q, K, V, options);
      const scores = Q.matmul(K.transpose(-2, -1));
      return weights ? { output, weights: options.scale === false ? scores : scores.div(Math.sqrt(Q.shape[Q.ndim - 1])) } : { output };
    },
  },
  attention_masked_rows_uniform: {
    attention: (Q, K, V, { mask, scale = true, returnWeights = true }: AttentionOptions = {}) => {
      const scores = Q.matmul(K.transpose(-2, -1)).div(scale ? Math.sqrt(Q.shape[Q.ndim - 1]) : 1);
      const weights = softmax(mask ? scores.maskedFill(mask.eq(0), -1e9) : scores, -1);
      return returnWeights ? { output: weights.matmul(V), weights } : { output: weights.matmul(V) };
    },
  },

  single_head_bias_missing: { singleHeadAttention: (x, w, options) => singleHeadAttention(x, withoutBiases(w, ['qBias', 'kBias', 'vBias']), options) },
  single_head_never_scaled: { singleHeadAttention: (x, w, options = {}) => singleHeadAttention(x, w, { ...options, scale: false }) },
  single_head_projection_not_transposed: {
    singleHeadAttention: (x, w, options) => singleHeadAttention(x, { ...w, qProj: w.qProj.transpose(-2, -1), kProj: w.kProj.transpose(-2, -1), vProj: w.vProj.transpose(-2, -1) }, options),
  },

  mha_output_bias_missing: { multiHeadAttention: (x, w, numHeads, options) => multiHeadAttention(x, withoutBiases(w, ['oBias']), numHeads, options) },
  mha_weights_averaged: {
    multiHeadAttention: (x, w, numHeads, options) => {
      const { output, weights } = multiHeadAttention(x, w, numHeads, options);
      return { output, weights: weights.sum(-3).div(numHeads) };
    },
  },
  // Q scaled by 1/√numHeads: its scores over √d_head are those over √d_model.
  mha_scaled_by_dmodel: {
    multiHeadAttention: (x, w, numHeads, options) =>
      multiHeadAttention(x, { ...w, qProj: w.qProj.div(Math.sqrt(numHeads)), qBias: w.qBias.div(Math.sqrt(numHeads)) }, numHeads, options),
  },
};

/** The weights with the named biases zeroed: projections computed without them. */
function withoutBiases<W extends SingleHeadWeights>(w: W, biases: readonly (keyof W & string)[]): W {
  return { ...w, ...Object.fromEntries(biases.map((b) => [b, (w[b] as Tensor).mul(0)])) };
}
