/**
 * How a mistake shows when it leaves no output to compare: the error the code threw, or where the
 * adapter found NaN or Infinity. Each recogniser reads the failure and the case's inputs only.
 */
import { broadcastOffset, type Values } from '../compare';
import { unravelIndex } from '../format';

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

/** Whether the query row at `row` (an index into [...batch, queries]) has every one of its `keys` masked. */
function fullyMasked(mask: Values, row: readonly number[], keys: number): boolean {
  const index = [...row, 0];
  for (let k = 0; k < keys; k++) {
    index[row.length] = k;
    if (mask.data[broadcastOffset(mask.shape, index)] !== 0) return false;
  }
  return true;
}

/** NaN exactly where a query's keys are all masked (softmax over a row of −∞ is 0/0), nowhere else. */
export const nanInFullyMaskedRows: Recogniser = (failure, { q, k, v, mask }) => {
  const found = parseNonFinite(failure);
  if (!found || !mask || found.index.length !== q.shape.length) return false;
  const rows = q.shape.slice(0, -1);
  const keys = dim(k, 2);
  if (!fullyMasked(mask, found.index.slice(0, -1), keys)) return false;
  let maskedRows = 0;
  const count = rows.reduce((a, b) => a * b, 1);
  for (let r = 0; r < count; r++) if (fullyMasked(mask, unravelIndex(r, rows), keys)) maskedRows++;
  return found.count === maskedRows * dim(v, 1);
};

/** The largest |q·k| / √d_k of the case: above EXP_OVERFLOWS_AT, exp of a score overflows. */
function maxAbsScore({ q, k }: Inputs): number {
  const [nQ, dK, nK] = [dim(q, 2), dim(q, 1), dim(k, 2)];
  const batches = q.data.length / (nQ * dK);
  let max = 0;
  for (let b = 0; b < batches; b++) {
    for (let i = 0; i < nQ; i++) {
      for (let j = 0; j < nK; j++) {
        let dot = 0;
        for (let d = 0; d < dK; d++) dot += q.data[(b * nQ + i) * dK + d] * k.data[(b * nK + j) * dK + d];
        max = Math.max(max, Math.abs(dot));
      }
    }
  }
  return max / Math.sqrt(dK);
}

/** NaN or Infinity on a case whose scores are large enough for exp to overflow. */
export const attentionOverflow: Recogniser = (failure, inputs) =>
  parseNonFinite(failure) !== undefined && maxAbsScore(inputs) > EXP_OVERFLOWS_AT;

/** NaN or Infinity from a softmax whose input is large enough for exp to overflow. */
export const softmaxOverflow: Recogniser = (failure, { x }) =>
  parseNonFinite(failure) !== undefined && Array.prototype.some.call(x.data, (value: number) => value > EXP_OVERFLOWS_AT);

/** Q [..., n_q, d_k] times K [..., n_k, d_k] untransposed: matmul refuses inner dims d_k and n_k. */
export const matmulWithUntransposedK: Recogniser = (failure, { q, k }) => {
  const found = /matmul: inner dims (\d+) and (\d+)/.exec(failure.message);
  return failure.kind === 'threw' && found !== null && Number(found[1]) === dim(q, 1) && Number(found[2]) === dim(k, 2);
};

/** A lower-rank mask (a 2-D one for batched inputs) that the code could not broadcast. */
export const maskNotBroadcast: Recogniser = (failure, { q, mask }) =>
  failure.kind === 'threw' && mask !== undefined && mask.shape.length < q.shape.length && /broadcast/i.test(failure.message);

/** A shape error (lib/tensor.ts refusing a reshape, matmul…) on an input (named) with more than one leading batch dim. */
export const shapeErrorWithBatchDims =
  (input: string): Recogniser =>
  (failure, inputs) =>
    failure.kind === 'threw' && failure.name === 'ShapeError' && inputs[input].shape.length > 3;
