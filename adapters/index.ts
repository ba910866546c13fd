/**
 * The one place the graded suite touches a submission. Each adapter calls the chosen
 * implementation's function and reads what comes back as a Tensor (adapters/normalise.ts).
 *
 * The implementation is the folder adapters/load.ts chooses (`student/` unless
 * ATTENTION_SUBMISSION names another), loaded twice: the graded instance, which sees only the
 * graded calls in the table's order (as the grader's child does), and an instance of its own for
 * the diagnosis's probes (as the grader probes in a fresh child).
 */
import { broadcastOffset } from '../lib/compare';
import type { Probe } from '../lib/diagnosis/probe';
import { unravelIndex } from '../lib/format';
import { InProcessSession } from '../lib/grading/inProcess';
import { expectedShape } from '../lib/model/invoke';
import { askingOnce, noAnswer, valueAnswer } from '../lib/grading/probeCalls';
import { describeError } from '../lib/sandbox/errorInfo';
import { trapExit } from '../lib/grading/exitTrap';
import type { Tensor } from '../lib/tensor';
import type { GradedFunction } from '../tests/cases';
import { checkChosen, loadError, LoadFailure, type Checked } from './load';
import { watchedLoad } from './loadWatchdog';
import { withinLimit } from './withinLimit';
import { diedWords, notRunAfterLoad, PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
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

const own = (t: Tensor | undefined) => t?.clone();
const ownWeights = (w: AttentionWeights): AttentionWeights => ({ qProj: w.qProj.clone(), kProj: w.kProj.clone(), vProj: w.vProj.clone(), oProj: w.oProj.clone() });

/**
 * Adapters over an already loaded implementation; `file` names it in messages. Each call gets its
 * own copy of the tensors, and its return is read under the call's own limit: reading it may run
 * student code (a getter), which must not hang npm test either.
 */
export function bindAdapters(impl: Partial<Submission>, file = 'student/index.ts', limitMs = PER_TEST_LIMIT_MS): Adapters {
  return {
    runSoftmax: (x, dim) => withinLimit('softmax', () => readResult('softmax', member(impl, 'softmax', file)(x.clone(), dim)), limitMs),
    runScaledDotProductAttention: (Q, K, V, mask) =>
      withinLimit('scaled_dot_product_attention', () => readResult('scaled_dot_product_attention', member(impl, 'scaledDotProductAttention', file)(Q.clone(), K.clone(), V.clone(), own(mask)), mask), limitMs),
    runCausalMask: (seqLen) => withinLimit('causal_mask', () => readResult('causal_mask', member(impl, 'causalMask', file)(seqLen)), limitMs),
    runMultiHeadSelfAttention: (x, weights, numHeads, mask) =>
      withinLimit('multihead_self_attention', () => readResult('multihead_self_attention', member(impl, 'multiHeadSelfAttention', file)(x.clone(), ownWeights(weights), numHeads, own(mask))), limitMs),
  };
}

/**
 * The diagnosis's way to call an implementation again (lib/diagnosis/probe.ts), in this process,
 * as the grader's probes call its child (lib/grading/probeCalls.ts): each call on its own copy of
 * the inputs, its return read as the child reads it, with NaN kept, and the answer says which
 * inputs it changed.
 */
export function probeOf(impl: Partial<Submission>, file = 'student/index.ts', limitMs = PER_TEST_LIMIT_MS): Probe {
  const session = new InProcessSession(impl, file, undefined, limitMs);
  return askingOnce(async (fn, inputs) => {
    const outcome = session.call(fn, inputs);
    if (outcome.kind === 'timeout' || outcome.kind === 'crashed') return noAnswer(outcome);
    const changed = outcome.changed.length ? { changed: outcome.changed } : {};
    if (outcome.kind === 'value') return { ...valueAnswer(fn, outcome.value, expectedShape(fn, inputs)), ...changed };
    // As the child describes it, read under the call's limit: the thrown value's getters may loop.
    return { kind: 'threw', name: outcome.error.name, message: outcome.error.message, ...changed };
  });
}

export interface Loaded {
  checked: Checked;
  /** The instance the graded calls go to. */
  graded: Partial<Submission>;
  /**
   * An instance of its own for the diagnosis's probes, loaded at the first probe (a passing run
   * loads none): what probes do never reaches a graded call.
   */
  probes(): Promise<Partial<Submission>>;
}

let chosen: Promise<Loaded> | undefined;

async function load(): Promise<Loaded> {
  const checked = checkChosen();
  // What an import threw is described while the import is still watched: its getters are the
  // student's. A process.exit at its top level is the crash the grader reports (exitTrap.ts).
  const imported = (file: string) =>
    watchedLoad(async () => {
      const exit = trapExit();
      let loaded: { module: Partial<Submission> } | { failure: LoadFailure };
      try {
        loaded = { module: (await import(file)) as Partial<Submission> };
      } catch (err) {
        loaded = { failure: loadError(describeError(err)) };
      } finally {
        exit.release();
      }
      // Whatever followed process.exit (what the trap threw, caught or not), the grader's child was gone.
      if (exit.exited) throw new LoadFailure('crashed', diedWords(exit.exited, true));
      if ('failure' in loaded) throw loaded.failure;
      return loaded.module;
    }, checked.entryName);
  const graded = await imported(checked.entryFile);
  // Every file of the folder resolves with this query too (vitest.config.mts): a second instance of each.
  let probes: Promise<Partial<Submission>> | undefined;
  return { checked, graded, probes: () => (probes ??= imported(`${checked.entryFile}?probe`)) };
}

/** The chosen submission, checked and loaded once; rejects with a LoadFailure in the grader's words. */
export function loadedSubmission(): Promise<Loaded> {
  return (chosen ??= load());
}

/** The test that met the LoadFailure first in this run, and says why. */
let loadFailedIn: string | undefined;

/**
 * loadedSubmission for the test `test`. When the submission cannot load, the first test to ask
 * fails with the reason and every later one says it did not run and names that test, as the
 * grader says it once (lib/model/notRun.ts). With `-t`, the first is the first that ran.
 */
export async function loadedFor(test: string): Promise<Loaded> {
  try {
    return await loadedSubmission();
  } catch (err) {
    if (!(err instanceof LoadFailure)) throw err;
    loadFailedIn ??= test;
    if (loadFailedIn === test) throw err;
    throw new LoadFailure(err.status, notRunAfterLoad(loadFailedIn));
  }
}

const adapters = async () => {
  const { graded, checked } = await loadedSubmission();
  return bindAdapters(graded, checked.entryName);
};

let probeOfChosen: Probe | undefined;

/** probeOf the chosen submission's instance for probes. */
export const probe: Probe = async (fn, inputs, options) => {
  const { probes, checked } = await loadedSubmission();
  return (probeOfChosen ??= probeOf(await probes(), checked.entryName))(fn, inputs, options);
};

export const runSoftmax = async (x: Tensor, dim: number) => (await adapters()).runSoftmax(x, dim);
export const runScaledDotProductAttention = async (Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) =>
  (await adapters()).runScaledDotProductAttention(Q, K, V, mask);
export const runCausalMask = async (seqLen: number) => (await adapters()).runCausalMask(seqLen);
export const runMultiHeadSelfAttention = async (x: Tensor, weights: AttentionWeights, numHeads: number, mask?: Tensor) =>
  (await adapters()).runMultiHeadSelfAttention(x, weights, numHeads, mask);
