/**
 * The reference with one known mistake applied (ids from lib/diagnosis/catalogue.ts). The fixture
 * generator runs each on every case of its function, in float64, and stores the finite outputs
 * that differ from the expected one. They are precomputed rather than computed when a test fails
 * because the reference is instructor-only: the handout's own `npm test` must name mistakes too,
 * and the grader should not run reference code per failure. Never shipped to students.
 */
import type { CaseRunner } from '../lib/grading/invoke';
import { Tensor } from '../lib/tensor';
import { scaledDotProductAttention, softmax, type AttentionWeights } from './index';

type Runner = CaseRunner<Tensor>;

/** How an attention variant departs from the reference; every field defaults to the reference's way. */
interface AttentionVariant {
  /** What the scores are divided by before the softmax (√d_k). */
  divisor?: (dK: number, dV: number) => number;
  /** Divide the probabilities by √d_k instead of the scores. */
  scaleAfterSoftmax?: boolean;
  /** The positions that must not attend (mask == 0); undefined: none. */
  blocked?: (mask: Tensor) => Tensor | undefined;
  /** The score given to blocked positions (−∞). */
  fill?: number;
  /** Zero the blocked probabilities after the softmax, which also zeroes a fully masked row's 0/0 (true). */
  zeroBlocked?: boolean;
  softmax?: (x: Tensor, dim: number) => Tensor;
  softmaxDim?: number;
  transposeK?: boolean;
}

function attentionWith(variant: AttentionVariant): Runner['runScaledDotProductAttention'] {
  const { divisor = (dK: number) => Math.sqrt(dK), blocked: blockedOf = (m: Tensor) => m.eq(0) } = variant;
  const { fill = -Infinity, zeroBlocked = true, softmax: normalise = softmax, softmaxDim = -1 } = variant;
  return (Q, K, V, mask) => {
    const dK = Q.shape[Q.ndim - 1];
    const dV = V.shape[V.ndim - 1];
    const raw = Q.matmul(variant.transposeK === false ? K : K.transpose(-2, -1));
    const scores = variant.scaleAfterSoftmax ? raw : raw.div(divisor(dK, dV));
    const blocked = mask && blockedOf(mask);
    let weights = normalise(blocked ? scores.maskedFill(blocked, fill) : scores, softmaxDim);
    if (blocked && zeroBlocked) weights = weights.maskedFill(blocked, 0);
    if (variant.scaleAfterSoftmax) weights = weights.div(Math.sqrt(dK));
    return weights.matmul(V);
  };
}

/** exp without subtracting the max; NaN cleared to 0 as seed 001's notebook does, so overflow gives zeros. */
function unstableSoftmax(x: Tensor, dim: number): Tensor {
  const e = x.exp();
  const p = e.div(e.sum(dim, true));
  return p.maskedFill(p.isNaN(), 0);
}

/** Reads [batch, n, d] from shape[0..2], as a bmm-only solution does: more batch dims cannot reshape. */
const attention3d: Runner['runScaledDotProductAttention'] = (Q, K, V, mask) => {
  const [b, nQ, dK] = Q.shape;
  const [nK, dV] = [K.shape[1], V.shape[2]];
  return scaledDotProductAttention(Q.reshape(b, nQ, dK), K.reshape(b, nK, dK), V.reshape(b, nK, dV), mask?.reshape(-1, nQ, nK));
};

/** Pads a lower-rank mask with dims after the first instead of in front. */
const attentionMaskPaddedInside: Runner['runScaledDotProductAttention'] = (Q, K, V, mask) => {
  let padded = mask;
  while (padded && padded.ndim < Q.ndim) padded = padded.unsqueeze(1);
  return scaledDotProductAttention(Q, K, V, padded);
};

/** How a multi-head variant departs from the reference. */
interface MultiHeadVariant {
  heads?: 'contiguous' | 'interleaved' | 'none';
  transposeWeights?: boolean;
  outputProjection?: boolean;
  passMask?: boolean;
  /** Read batch, seq and dModel as x.shape[0..2]. */
  threeDims?: boolean;
}

function multiHeadWith(variant: MultiHeadVariant): Runner['runMultiHeadSelfAttention'] {
  const { heads = 'contiguous', transposeWeights = true, outputProjection = true, passMask = true } = variant;
  return (x: Tensor, w: AttentionWeights, numHeads: number, mask?: Tensor) => {
    const batch = variant.threeDims ? [x.shape[0]] : x.shape.slice(0, -2);
    const [seq, dModel] = variant.threeDims ? [x.shape[1], x.shape[2]] : x.shape.slice(-2);
    const dHead = dModel / numHeads;
    const project = (t: Tensor, weight: Tensor) => t.matmul(transposeWeights ? weight.transpose(-2, -1) : weight);
    const split = (t: Tensor) =>
      heads === 'none' ? t
      : heads === 'interleaved' ? t.reshape(...batch, seq, dHead, numHeads).transpose(-1, -2).transpose(-3, -2)
      : t.reshape(...batch, seq, numHeads, dHead).transpose(-3, -2);
    const merge = (t: Tensor) =>
      heads === 'none' ? t
      : heads === 'interleaved' ? t.transpose(-3, -2).transpose(-1, -2).reshape(...batch, seq, dModel)
      : t.transpose(-3, -2).reshape(...batch, seq, dModel);
    const [q, k, v] = [w.qProj, w.kProj, w.vProj].map((weight) => split(project(x, weight)));
    const merged = merge(scaledDotProductAttention(q, k, v, passMask ? mask : undefined));
    return outputProjection ? project(merged, w.oProj) : merged;
  };
}

const causalWith =
  (keep: (key: Tensor, query: Tensor) => Tensor): Runner['runCausalMask'] =>
  (seqLen) => keep(Tensor.arange(seqLen).reshape(1, seqLen), Tensor.arange(seqLen).reshape(seqLen, 1));

/** Each mistake's variant: the one graded function it changes. */
export const MISTAKE_VARIANTS: Record<string, Partial<Runner>> = {
  softmax_wrong_dim: { runSoftmax: (x) => softmax(x, -1) },
  softmax_whole_tensor: {
    runSoftmax: (x, dim) => {
      const e = x.sub(x.max(dim, true)).exp();
      return e.div(e.sum());
    },
  },
  softmax_unstable: {
    runSoftmax: (x, dim) => {
      const e = x.exp();
      return e.div(e.sum(dim, true));
    },
  },

  k_not_transposed: { runScaledDotProductAttention: attentionWith({ transposeK: false }) },
  mask_broadcast: { runScaledDotProductAttention: attentionMaskPaddedInside },
  fully_masked_nan: { runScaledDotProductAttention: attentionWith({ zeroBlocked: false }) },
  unstable_softmax: { runScaledDotProductAttention: attentionWith({ softmax: unstableSoftmax }) },
  batch_dims: { runScaledDotProductAttention: attention3d },
  scale_missing: { runScaledDotProductAttention: attentionWith({ divisor: () => 1 }) },
  scale_by_dk: { runScaledDotProductAttention: attentionWith({ divisor: (dK) => dK }) },
  scale_by_sqrt_dv: { runScaledDotProductAttention: attentionWith({ divisor: (_, dV) => Math.sqrt(dV) }) },
  scale_after_softmax: { runScaledDotProductAttention: attentionWith({ scaleAfterSoftmax: true }) },
  softmax_over_queries: { runScaledDotProductAttention: attentionWith({ softmaxDim: -2 }) },
  mask_inverted: { runScaledDotProductAttention: attentionWith({ blocked: (m) => m.ne(0) }) },
  mask_ignored: { runScaledDotProductAttention: attentionWith({ blocked: () => undefined }) },
  fully_masked_uniform: { runScaledDotProductAttention: attentionWith({ fill: -1e9, zeroBlocked: false }) },
  mask_minus_100: { runScaledDotProductAttention: attentionWith({ fill: -100, zeroBlocked: false }) },

  causal_off_by_one: { runCausalMask: causalWith((key, query) => key.lt(query)) },
  causal_upper: { runCausalMask: causalWith((key, query) => key.ge(query)) },

  mhsa_batch_dims: { runMultiHeadSelfAttention: multiHeadWith({ threeDims: true }) },
  heads_interleaved: { runMultiHeadSelfAttention: multiHeadWith({ heads: 'interleaved' }) },
  heads_not_split: { runMultiHeadSelfAttention: multiHeadWith({ heads: 'none' }) },
  projection_not_transposed: { runMultiHeadSelfAttention: multiHeadWith({ transposeWeights: false }) },
  output_projection_missing: { runMultiHeadSelfAttention: multiHeadWith({ outputProjection: false }) },
  mhsa_mask_ignored: { runMultiHeadSelfAttention: multiHeadWith({ passMask: false }) },
};
