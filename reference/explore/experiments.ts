/**
 * The course notebook's experiments (seed 001, "The Attention Surgeon"), run on the reference:
 * how the softmax saturates as d_k grows with and without the 1/√d_k scale, and what no mask, a
 * causal mask and a random mask do to the attention weights. Instructor tooling: it imports
 * reference/, so it is never shipped.
 */
import { causalMask, scaledDotProductAttention } from '..';
import type { Matrix } from '../../lib/report/heatmap';
import { Tensor } from '../../lib/tensor';

/** seed 001 tries 16, 64, 256 and 1024; every power of two between them draws the curve. */
export const DK_VALUES = [16, 32, 64, 128, 256, 512, 1024] as const;
/** seed 001: Q, K = torch.randn(1, 10, d_k). */
const SCALING_QUERIES = 10;

export interface ScalingPoint {
  dK: number;
  maxScaled: number;
  maxUnscaled: number;
  /** Mean over queries of −Σ w ln w, in nats, with seed 001's + 1e-9 inside the log. */
  entropyScaled: number;
  entropyUnscaled: number;
}

/** The attention weights: with V the identity, attention outputs its probability matrix. */
function weights(q: Tensor, k: Tensor, mask?: Tensor): Tensor {
  const keys = k.shape[k.ndim - 2];
  return scaledDotProductAttention(q, k, Tensor.eye(keys, 'float64').reshape(1, keys, keys), mask);
}

function meanEntropy(w: Tensor): number {
  const p = w.add(1e-9);
  return p.mul(p.log()).sum(-1).neg().mean().item();
}

export function scalingExperiment(): ScalingPoint[] {
  return DK_VALUES.map((dK) => {
    const q = Tensor.randn([1, SCALING_QUERIES, dK], `explore/scaling/q/${dK}`, 'float64');
    const k = Tensor.randn([1, SCALING_QUERIES, dK], `explore/scaling/k/${dK}`, 'float64');
    const scaled = weights(q, k);
    // softmax(Q Kᵀ) is the reference's softmax(Q' Kᵀ / √d_k) with Q' = √d_k · Q.
    const unscaled = weights(q.mul(Math.sqrt(dK)), k);
    return {
      dK,
      maxScaled: scaled.max().item(),
      maxUnscaled: unscaled.max().item(),
      entropyScaled: meanEntropy(scaled),
      entropyUnscaled: meanEntropy(unscaled),
    };
  });
}

export const MASK_SEQ = 8;
const MASK_DK = 8;
/** The random mask's query whose keys are all masked: its row must come out as zeros. */
export const FULLY_MASKED_QUERY = 5;

export interface MaskCase {
  title: string;
  note: string;
  mask: Matrix;
  weights: Matrix;
}

const asMatrix = (t: Tensor): Matrix => ({ rows: t.shape[t.ndim - 2], cols: t.shape[t.ndim - 1], data: Float64Array.from(t.data) });

function randomMask(): Tensor {
  const allowed = Tensor.randn([MASK_SEQ, MASK_SEQ], 'explore/masks/random').gt(0);
  const data = Uint8Array.from(allowed.data);
  data.fill(0, FULLY_MASKED_QUERY * MASK_SEQ, (FULLY_MASKED_QUERY + 1) * MASK_SEQ);
  return new Tensor(data, [MASK_SEQ, MASK_SEQ]);
}

export function maskExperiment(): MaskCase[] {
  const q = Tensor.randn([1, MASK_SEQ, MASK_DK], 'explore/masks/q', 'float64');
  const k = Tensor.randn([1, MASK_SEQ, MASK_DK], 'explore/masks/k', 'float64');
  const cases: { title: string; note: string; mask?: Tensor }[] = [
    { title: 'no mask', note: 'bidirectional: every query sees every key' },
    { title: 'causal mask', note: 'each query sees keys ≤ itself: the upper triangle is 0', mask: causalMask(MASK_SEQ) },
    { title: 'random mask', note: `masked keys get 0; query ${FULLY_MASKED_QUERY}, all masked, outputs zeros`, mask: randomMask() },
  ];
  return cases.map(({ title, note, mask }) => ({
    title,
    note,
    mask: asMatrix(mask ?? Tensor.ones([MASK_SEQ, MASK_SEQ], 'bool')),
    weights: asMatrix(weights(q, k, mask)),
  }));
}
