/**
 * How a softmax or attention mistake shows when it leaves no output to compare: the error the code
 * threw, or that the adapter found NaN or Infinity. Each recogniser reads the failure and the
 * case's inputs only.
 */
import type { Values } from '../compare';

/** threw: the submission's code threw. unreadable: the adapter refused what it returned (NaN, a wrong type…). */
export interface Failure {
  kind: 'threw' | 'unreadable';
  name: string;
  message: string;
}

export type Inputs = Readonly<Record<string, Values>>;
export type Recogniser = (failure: Failure, inputs: Inputs) => boolean;

/** exp overflows float32 above this (e^88.7 ≈ 3.4e38); float64 holds out until 709. */
const EXP_OVERFLOWS_AT = 88;

const dim = (v: Values, fromEnd: number) => v.shape[v.shape.length - fromEnd];

/**
 * Where the adapter found non-finite values, read back from its message (adapters/normalise.ts):
 * "scaledDotProductAttention output has NaN at [0, 3, 1] (48 non-finite values in all). …".
 */
export function parseNonFinite(failure: Failure): { index: number[]; count: number } | undefined {
  if (failure.kind !== 'unreadable') return undefined;
  const found = / output has \S+ at \[([\d, ]*)\] \((\d+) non-finite values? in all\)/.exec(failure.message);
  if (!found) return undefined;
  return { index: found[1] === '' ? [] : found[1].split(', ').map(Number), count: Number(found[2]) };
}

/** NaN or Infinity from a softmax whose input is large enough for exp to overflow. */
export const softmaxOverflow: Recogniser = (failure, { x }) =>
  parseNonFinite(failure) !== undefined && Array.prototype.some.call(x.data, (value: number) => value > EXP_OVERFLOWS_AT);

/** Q [..., n_q, d_k] times K [..., n_k, d_k] untransposed: matmul refuses inner dims d_k and n_k. */
export const matmulWithUntransposedK: Recogniser = (failure, { q, k }) => {
  const found = /matmul: inner dims (\d+) and (\d+)/.exec(failure.message);
  return failure.kind === 'threw' && found !== null && Number(found[1]) === dim(q, 1) && Number(found[2]) === dim(k, 2);
};
