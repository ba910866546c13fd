/**
 * How the graded functions are called (functions.ts, the data the harness reads), and what
 * `student/index.ts` exports, as types: what the reference, the stubs and the self-tests type
 * their implementations with.
 */
import type { Tensor } from '../lib/tensor';
import type { GradedFunction } from '../tests/cases';
import { FUNCTIONS } from './functions';

export { FUNCTIONS };

/** Each function's export by its id, read off the specs (for the self-tests' messages and generated files). */
export const EXPORT_NAMES = Object.fromEntries(FUNCTIONS.map((f) => [f.id, f.export])) as Record<GradedFunction, string>;

export interface AttentionWeights {
  qProj: Tensor;
  kProj: Tensor;
  vProj: Tensor;
  oProj: Tensor;
}

/** Single-head attention's projections, and multi-head attention's with biases (the optional parts, tests/parts.ts). */
export interface SingleHeadWeights {
  qProj: Tensor;
  qBias: Tensor;
  kProj: Tensor;
  kBias: Tensor;
  vProj: Tensor;
  vBias: Tensor;
}
export interface BiasedAttentionWeights extends SingleHeadWeights {
  oProj: Tensor;
  oBias: Tensor;
}

/** What `student/index.ts` exports: the core part's functions, and the optional parts' where the switch turns them on. */
export interface Submission {
  softmax(x: Tensor, dim: number): unknown;
  scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): unknown;
  causalMask(seqLen: number): unknown;
  multiHeadSelfAttention(x: Tensor, weights: AttentionWeights, numHeads: number, mask?: Tensor): unknown;
  attention?(Q: Tensor, K: Tensor, V: Tensor, options?: { mask?: Tensor; scale?: boolean; returnWeights?: boolean }): unknown;
  singleHeadAttention?(x: Tensor, weights: SingleHeadWeights, options?: { scale?: boolean; mask?: Tensor }): unknown;
  multiHeadAttention?(x: Tensor, weights: BiasedAttentionWeights, numHeads: number, options?: { mask?: Tensor }): unknown;
  /** The gradients part's (adapters/gradients.ts): exported when the part is handed out. */
  softmaxBackward?(y: Tensor, dy: Tensor, dim: number): unknown;
  scaledDotProductAttentionBackward?(Q: Tensor, K: Tensor, V: Tensor, dOut: Tensor, mask?: Tensor): unknown;
}
