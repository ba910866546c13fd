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
import { changedInputs, snapshotInputs } from '../lib/diagnosis/inputsChanged';
import type { Probe } from '../lib/diagnosis/probe';
import { invokeCase } from '../lib/grading/invoke';
import { Tensor } from '../lib/tensor';
import type { GradedFunction } from '../tests/cases';
import { PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import { HangError, withinLimit } from './withinLimit';
import { EXPORT_NAMES, normaliseReturn, notExported, toFloatTensor, toMaskTensor, type NonFiniteHint } from './normalise';

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

/**
 * What the mask shows about a non-finite attention output: a fully masked row (0/0). Any other
 * cause is for the diagnosis to find (lib/diagnosis), from evidence rather than a guess.
 */
function attentionHint(mask: Tensor | undefined): NonFiniteHint {
  return (flat, shape) => {
    if (!mask) return '';
    const index = unravelIndex(flat, shape);
    const keys = mask.shape[mask.ndim - 1];
    for (let k = 0; k < keys; k++) {
      index[index.length - 1] = k;
      if (mask.data[broadcastOffset(mask.shape, index)] !== 0) return '';
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
  return toFloatTensor(raw, name, fn === 'scaled_dot_product_attention' ? attentionHint(mask) : undefined);
}

function member<K extends keyof Submission>(impl: Partial<Submission>, name: K, file: string): Submission[K] {
  const fn = impl[name];
  if (typeof fn !== 'function') throw notExported(file, name);
  return fn.bind(impl) as Submission[K];
}

/** Adapters over an already loaded implementation; `file` names it in messages. `limitMs`: each call's time limit. */
export function bindAdapters(impl: Partial<Submission>, file = 'student/index.ts', limitMs = PER_TEST_LIMIT_MS): Adapters {
  return {
    runSoftmax: (x, dim) => readResult('softmax', withinLimit('softmax', () => member(impl, 'softmax', file)(x, dim), limitMs)),
    runScaledDotProductAttention: (Q, K, V, mask) =>
      readResult('scaled_dot_product_attention', withinLimit('scaled_dot_product_attention', () => member(impl, 'scaledDotProductAttention', file)(Q, K, V, mask), limitMs), mask),
    runCausalMask: (seqLen) => readResult('causal_mask', withinLimit('causal_mask', () => member(impl, 'causalMask', file)(seqLen), limitMs)),
    runMultiHeadSelfAttention: (x, weights, numHeads, mask) =>
      readResult('multihead_self_attention', withinLimit('multihead_self_attention', () => member(impl, 'multiHeadSelfAttention', file)(x, weights, numHeads, mask), limitMs)),
  };
}

/**
 * The diagnosis's way to call an implementation again (lib/diagnosis/probe.ts), in this process:
 * what it returns is read by normaliseReturn, as the grader's child reads it, with NaN kept. As in
 * the child, the function gets copies of the inputs, and the answer says which it changed.
 */
export function probeOf(impl: Partial<Submission>, file = 'student/index.ts', limitMs = PER_TEST_LIMIT_MS): Probe {
  const runner = {
    runSoftmax: (x: Tensor, dim: number) => withinLimit('softmax', () => member(impl, 'softmax', file)(x, dim), limitMs),
    runScaledDotProductAttention: (Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) =>
      withinLimit('scaled_dot_product_attention', () => member(impl, 'scaledDotProductAttention', file)(Q, K, V, mask), limitMs),
    runCausalMask: (seqLen: number) => withinLimit('causal_mask', () => member(impl, 'causalMask', file)(seqLen), limitMs),
    runMultiHeadSelfAttention: (x: Tensor, weights: AttentionWeights, numHeads: number, mask?: Tensor) =>
      withinLimit('multihead_self_attention', () => member(impl, 'multiHeadSelfAttention', file)(x, weights, numHeads, mask), limitMs),
  };
  // As the grader's probes (diagnoseInChild.ts): after a call that gets no answer, no more calls.
  let givenUp = false;
  const none = { kind: 'none', why: 'the function did not finish within the time limit' } as const;
  return async (fn, { params, inputs }) => {
    if (givenUp) return none;
    const copies: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(inputs)) copies[name] = new Tensor(t.data.slice(), t.shape);
    const before = snapshotInputs(copies);
    const changes = () => {
      const changed = changedInputs(before, copies);
      return changed.length ? { changed } : {};
    };
    try {
      return { kind: 'value', output: normaliseReturn(fn, invokeCase(fn, { params, inputs: copies }, runner)), ...changes() };
    } catch (err) {
      if (err instanceof HangError) {
        givenUp = true;
        return none;
      }
      const { name, message } = err instanceof Error ? err : { name: 'thrown value', message: String(err) };
      return { kind: 'threw', name, message, ...changes() };
    }
  };
}

/** The folder's index.ts named by ATTENTION_SUBMISSION (default `student`). */
export function chosenSubmissionFile(): string {
  const folder = path.resolve(PROJECT_ROOT, process.env.ATTENTION_SUBMISSION || 'student');
  return folder.endsWith('.ts') ? folder : path.join(folder, 'index.ts');
}

let chosen: Promise<{ adapters: Adapters; probe: Probe }> | undefined;

async function load(): Promise<{ adapters: Adapters; probe: Probe }> {
  const file = chosenSubmissionFile();
  let impl: Partial<Submission>;
  try {
    impl = (await import(file)) as Partial<Submission>;
  } catch (err) {
    throw new ResultError(`${displayPath(file)} could not be loaded: ${(err as Error)?.message ?? String(err)}`);
  }
  return { adapters: bindAdapters(impl, displayPath(file)), probe: probeOf(impl, displayPath(file)) };
}

const adapters = async () => (await (chosen ??= load())).adapters;

/** probeOf the chosen submission. */
export const probe: Probe = async (fn, inputs) => (await (chosen ??= load())).probe(fn, inputs);

export const runSoftmax = async (x: Tensor, dim: number) => (await adapters()).runSoftmax(x, dim);
export const runScaledDotProductAttention = async (Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) =>
  (await adapters()).runScaledDotProductAttention(Q, K, V, mask);
export const runCausalMask = async (seqLen: number) => (await adapters()).runCausalMask(seqLen);
export const runMultiHeadSelfAttention = async (x: Tensor, weights: AttentionWeights, numHeads: number, mask?: Tensor) =>
  (await adapters()).runMultiHeadSelfAttention(x, weights, numHeads, mask);
