/**
 * How a softmax or attention mistake shows when it leaves no output to compare: the error the code
 * threw, or that the adapter found NaN or Infinity. Each recogniser reads the failure and the
 * case's inputs only.
 */
import type { Values } from '../../lib/compare';
import { parseNonFinite, type Failure } from '../../lib/diagnosis/explain';

export type Inputs = Readonly<Record<string, Values>>;
export type Recogniser = (failure: Failure, inputs: Inputs, params: Readonly<Record<string, number>>) => boolean;

/** exp overflows float32 above this (e^88.7 ≈ 3.4e38); float64 holds out until 709. */
const EXP_OVERFLOWS_AT = 88;

const dim = (v: Values, fromEnd: number) => v.shape[v.shape.length - fromEnd];

/**
 * Where exp leaves the finite, non-zero numbers, in float64 and in float32 (as a Float32Array stores
 * it): above `over` it is Infinity, below `under` it is 0. Read from the limits, not computed: no
 * code here takes an exponential.
 */
interface Precision {
  over: number;
  under: number;
  round: (v: number) => number;
}
const PRECISIONS: readonly Precision[] = [
  { over: Math.log(Number.MAX_VALUE), under: Math.log(Number.MIN_VALUE), round: (v) => v },
  { over: Math.log(3.4028234663852886e38), under: Math.log(2 ** -150), round: Math.fround },
];
/** What exp(v) is in a precision, as far as NaN is concerned: Infinity, 0, or a finite positive 1. */
const expClass = (v: number, p: Precision) => (p.round(v) > p.over ? Infinity : p.round(v) < p.under ? 0 : 1);

/**
 * The flat indices where a softmax along `dim` gives NaN when each element's exp is `expOf(x, slice
 * max, tensor max)`: an exp that is Infinity gives Infinity/Infinity, a slice whose exps all
 * underflow to 0 gives 0/0. Returns the count and the first, to hold against what the adapter found.
 */
function predictedNaN(x: Values, dim: number, expOf: (value: number, tensorMax: number) => number): { count: number; first: number } {
  const d = dim < 0 ? dim + x.shape.length : dim;
  const n = x.shape[d];
  const inner = x.shape.slice(d + 1).reduce((a, b) => a * b, 1);
  const outer = x.data.length / Math.max(1, n * inner);
  let tensorMax = -Infinity;
  for (let i = 0; i < x.data.length; i++) tensorMax = Math.max(tensorMax, x.data[i]);
  let count = 0;
  let first = Infinity;
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const at = (j: number) => (o * n + j) * inner + i;
      const exps = Array.from({ length: n }, (_, j) => expOf(x.data[at(j)], tensorMax));
      const allZero = exps.every((e) => e === 0);
      for (let j = 0; j < n; j++) {
        if (!allZero && Number.isFinite(exps[j])) continue;
        count++;
        first = Math.min(first, at(j));
      }
    }
  }
  return { count, first };
}

/** Whether the NaN the adapter found is exactly where `expOf` predicts it, in float64 or in float32. */
function nanAsPredicted(failure: Failure, x: Values, dim: number, expOf: (p: Precision) => (value: number, tensorMax: number) => number): boolean {
  const found = parseNonFinite(failure);
  if (!found || found.index.length !== x.shape.length) return false;
  const flat = found.index.reduce((acc, i, d) => acc * x.shape[d] + i, 0);
  return PRECISIONS.some((precision) => {
    const predicted = predictedNaN(x, dim, expOf(precision));
    return predicted.count === found.count && predicted.first === flat;
  });
}

/**
 * NaN from a softmax that takes exp of its input as it is: the property measured is that the NaN is
 * exactly where exp(x) overflows (or a whole slice underflows), in float64 or float32, and nowhere
 * else. Large inputs alone are not enough: a softmax that subtracts the wrong max also NaNs on them.
 */
export const softmaxOverflow: Recogniser = (failure, { x }, { dim }) =>
  Array.prototype.some.call(x.data, (value: number) => value > EXP_OVERFLOWS_AT) && nanAsPredicted(failure, x, dim ?? -1, (p) => (v) => expClass(v, p));

/**
 * NaN from a softmax that subtracts the max of the whole tensor: the property measured is that the
 * NaN is exactly the slices whose every exp(x − max of the tensor) underflows to 0 (0/0), in float64
 * or float32, and nowhere else.
 */
export const softmaxGlobalMax: Recogniser = (failure, { x }, { dim }) =>
  nanAsPredicted(failure, x, dim ?? -1, (p) => (v, tensorMax) => expClass(p.round(p.round(v) - p.round(tensorMax)), p));

/** Q [..., n_q, d_k] times K [..., n_k, d_k] untransposed: matmul refuses inner dims d_k and n_k. */
export const matmulWithUntransposedK: Recogniser = (failure, { q, k }) => {
  const found = /matmul: inner dims (\d+) and (\d+)/.exec(failure.message);
  return failure.kind === 'threw' && found !== null && Number(found[1]) === dim(q, 1) && Number(found[2]) === dim(k, 2);
};
