/**
 * Problem 3's gradient flow (seed 000: "check that gradients are not vanishing (magnitude > 1e-8)
 * … with different embedding dimensions (64, 256, 512, 1024)"), run on the reference's backward
 * pass: how much gradient reaches Q and K as d_k grows, with the 1/√d_k scale and without it.
 * Instructor tooling: it imports reference/, so it is never shipped.
 */
import { scaledDotProductAttentionBackward } from '..';
import { Tensor } from '../../lib/tensor';

/** seed 000 tests 64, 256, 512 and 1024; every power of two between them draws the curve. */
export const GRADIENT_DK = [64, 128, 256, 512, 1024] as const;
/** The notebook's Q, K, V = randn(1, 10, d_k), drawn this many times so a median is steady. */
const ENTRIES = 16;
const QUERIES = 10;
/** Seed 000's line between a gradient that flows and one that vanishes. */
export const VANISHING = 1e-8;

export interface GradientStats {
  /** The median |entry| of the gradient. */
  median: number;
  /** The share of its entries below VANISHING, in percent. */
  vanished: number;
}

export interface GradientPoint {
  dK: number;
  scaled: { dQ: GradientStats; dK: GradientStats };
  unscaled: { dQ: GradientStats; dK: GradientStats };
}

function stats(t: Tensor): GradientStats {
  const magnitudes = Float64Array.from(t.data, Math.abs).sort();
  const below = magnitudes.findIndex((m) => m >= VANISHING);
  return { median: magnitudes[magnitudes.length >> 1], vanished: (100 * (below < 0 ? magnitudes.length : below)) / magnitudes.length };
}

/**
 * With the scale, the reference's gradients; without it, those of softmax(Q Kᵀ) V, which is the
 * reference's attention of Q' = √d_k·Q: its dK as it is, its dQ times √d_k (the chain rule
 * through Q' = √d_k·Q).
 */
export function gradientExperiment(): GradientPoint[] {
  return GRADIENT_DK.map((dK) => {
    const draw = (name: string) => Tensor.randn([ENTRIES, QUERIES, dK], `explore/gradients/${name}/${dK}`, 'float64');
    const [q, k, v, dOut] = [draw('q'), draw('k'), draw('v'), draw('dout')];
    const scaled = scaledDotProductAttentionBackward(q, k, v, dOut);
    const root = Math.sqrt(dK);
    const unscaled = scaledDotProductAttentionBackward(q.mul(root), k, v, dOut);
    return {
      dK,
      scaled: { dQ: stats(scaled.dQ), dK: stats(scaled.dK) },
      unscaled: { dQ: stats(unscaled.dQ.mul(root)), dK: stats(unscaled.dK) },
    };
  });
}
