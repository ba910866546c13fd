/**
 * The one place the graded suite touches a submission. Each adapter calls the chosen
 * implementation's function and reads what comes back as a Tensor (adapters/normalise.ts).
 *
 * The implementation is `student/` unless ATTENTION_SUBMISSION names another folder
 * (`reference` for the self-tests, or any submission folder holding index.ts).
 */
import path from 'node:path';
import { broadcastOffset } from '../lib/compare';
import { ResultError } from '../lib/errors';
import { unravelIndex } from '../lib/format';
import { displayPath, PROJECT_ROOT } from '../lib/paths';
import type { Tensor } from '../lib/tensor';
import type { GradedFunction } from '../tests/cases';
import { EXPORT_NAMES, notExported, toFloatTensor, toMaskTensor, type NonFiniteHint } from './normalise';

export interface AttentionWeights {
  qProj: Tensor;
  kProj: Tensor;
  vProj: Tensor;
  oProj: Tensor;
}

/** What `student/index.ts` exports. */
export interface Submission {
  softmax(x: Tensor, dim: number): unknown;
  scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): unknown;
  causalMask(seqLen: number): unknown;
  multiHeadSelfAttention(x: Tensor, weights: AttentionWeights, numHeads: number, mask?: Tensor): unknown;
}

export interface Adapters {
  /** x [...], softmax along `dim` → same shape. */
  runSoftmax(x: Tensor, dim: number): Tensor;
  /** Q [...batch, queries, dK], K [...batch, keys, dK], V [...batch, keys, dV], mask broadcastable to [...batch, queries, keys] → [...batch, queries, dV]. */
  runScaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor;
  /** → boolean [seqLen, seqLen]. */
  runCausalMask(seqLen: number): Tensor;
  /** x [...batch, seq, dModel], weights [dModel, dModel] (out, in), mask [seq, seq] → [...batch, seq, dModel]. */
  runMultiHeadSelfAttention(x: Tensor, weights: AttentionWeights, numHeads: number, mask?: Tensor): Tensor;
}

const OVERFLOW_HINT = 'NaN or Infinity here usually means exp overflowed: subtract the row max before exp.';

/** A non-finite attention output is either a fully masked row (0/0) or an overflowing exp. */
function attentionHint(mask: Tensor | undefined): NonFiniteHint {
  return (flat, shape) => {
    if (!mask) return OVERFLOW_HINT;
    const index = unravelIndex(flat, shape);
    const keys = mask.shape[mask.ndim - 1];
    for (let k = 0; k < keys; k++) {
      index[index.length - 1] = k;
      if (mask.data[broadcastOffset(mask.shape, index)] !== 0) return OVERFLOW_HINT;
    }
    return 'Every key of this query is masked: such a row must output zeros (softmax over all −∞ is 0/0 = NaN).';
  };
}

export { EXPORT_NAMES };

/**
 * Reads what a graded function returned as a Tensor, or refuses it. The grader calls this in the
 * parent process on the raw value a child sent back; `mask` only sharpens the NaN explanation.
 */
export function readResult(fn: GradedFunction, raw: unknown, mask?: Tensor): Tensor {
  const name = EXPORT_NAMES[fn];
  if (fn === 'causal_mask') return toMaskTensor(raw, name);
  return toFloatTensor(raw, name, fn === 'scaled_dot_product_attention' ? attentionHint(mask) : () => OVERFLOW_HINT);
}

function member<K extends keyof Submission>(impl: Partial<Submission>, name: K, file: string): Submission[K] {
  const fn = impl[name];
  if (typeof fn !== 'function') throw notExported(file, name);
  return fn.bind(impl) as Submission[K];
}

/** Adapters over an already loaded implementation; `file` names it in messages. */
export function bindAdapters(impl: Partial<Submission>, file = 'student/index.ts'): Adapters {
  return {
    runSoftmax: (x, dim) => readResult('softmax', member(impl, 'softmax', file)(x, dim)),
    runScaledDotProductAttention: (Q, K, V, mask) =>
      readResult('scaled_dot_product_attention', member(impl, 'scaledDotProductAttention', file)(Q, K, V, mask), mask),
    runCausalMask: (seqLen) => readResult('causal_mask', member(impl, 'causalMask', file)(seqLen)),
    runMultiHeadSelfAttention: (x, weights, numHeads, mask) =>
      readResult('multihead_self_attention', member(impl, 'multiHeadSelfAttention', file)(x, weights, numHeads, mask)),
  };
}

/** The folder's index.ts named by ATTENTION_SUBMISSION (default `student`). */
export function chosenSubmissionFile(): string {
  const folder = path.resolve(PROJECT_ROOT, process.env.ATTENTION_SUBMISSION || 'student');
  return folder.endsWith('.ts') ? folder : path.join(folder, 'index.ts');
}

let chosen: Promise<Adapters> | undefined;

async function load(): Promise<Adapters> {
  const file = chosenSubmissionFile();
  let impl: Partial<Submission>;
  try {
    impl = (await import(file)) as Partial<Submission>;
  } catch (err) {
    throw new ResultError(`${displayPath(file)} could not be loaded: ${(err as Error)?.message ?? String(err)}`);
  }
  return bindAdapters(impl, displayPath(file));
}

const adapters = () => (chosen ??= load());

export const runSoftmax = async (x: Tensor, dim: number) => (await adapters()).runSoftmax(x, dim);
export const runScaledDotProductAttention = async (Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) =>
  (await adapters()).runScaledDotProductAttention(Q, K, V, mask);
export const runCausalMask = async (seqLen: number) => (await adapters()).runCausalMask(seqLen);
export const runMultiHeadSelfAttention = async (x: Tensor, weights: AttentionWeights, numHeads: number, mask?: Tensor) =>
  (await adapters()).runMultiHeadSelfAttention(x, weights, numHeads, mask);
