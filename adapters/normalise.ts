/**
 * Reads what a graded function returned as a Tensor, per the contract: a Tensor or any
 * `{ shape, data }` with row-major data (Float32Array, Float64Array, plain numbers; for masks also
 * Uint8Array and booleans). Anything else is refused with a message a student can act on.
 *
 * Two steps, so that vitest and the grader say the same words: `normaliseReturn` (a tensor of the
 * right kind, or why not) runs where the student's function ran: in-process under vitest, in the
 * grader's child, which sends the tensor on. The value checks (finite, 0/1) then run where the
 * verdict is made: `toFloatTensor` / `toMaskTensor` repeat the first step on what arrived, which
 * changes nothing for an honest child and refuses a forged message in the same words.
 */
import { NonFiniteResult, ResultError } from '../lib/errors';
import { judgedByShape } from '../lib/model/invoke';
import { formatIndex, formatNumber, plural, unravelIndex } from '../lib/format';
import { formatShape } from '../lib/shape';
import { Tensor } from '../lib/tensor';
import type { GradedFunction } from '../tests/cases';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  return typeof value === 'object' ? `an object without ${'shape' in value ? 'data' : 'shape'}` : `a ${typeof value}`;
}

function readShape(result: { shape: unknown }, fn: string): number[] {
  const shape = result.shape;
  const ok =
    (Array.isArray(shape) || ArrayBuffer.isView(shape)) &&
    Array.from(shape as ArrayLike<unknown>).every((n) => Number.isInteger(n) && (n as number) >= 0);
  if (!ok) throw new ResultError(`${fn} returned a shape that is not a list of non-negative integers: ${String(shape)}`);
  return Array.from(shape as ArrayLike<number>);
}

type Kind = 'float' | 'mask';

function readData(data: unknown, fn: string, kind: Kind): Float32Array | Float64Array | Uint8Array {
  if (data instanceof Float32Array || data instanceof Float64Array) return data.slice();
  if (data instanceof Uint8Array) {
    if (kind === 'mask') return data.slice();
    throw new ResultError(`${fn} returned boolean data (Uint8Array); it must return float values (Float32Array, Float64Array or numbers)`);
  }
  if (Array.isArray(data)) {
    if (data.some((v) => Array.isArray(v))) {
      throw new ResultError(`${fn} returned nested arrays as data; data must be flat, in row-major order (try .flat(Infinity))`);
    }
    const bad = data.findIndex((v) => typeof v !== 'number' && !(kind === 'mask' && typeof v === 'boolean'));
    if (bad >= 0) {
      throw new ResultError(`${fn} returned data with a ${typeof data[bad]} at position ${bad}; data must hold ${kind === 'mask' ? 'numbers or booleans' : 'numbers'}`);
    }
    return Float64Array.from(data, Number);
  }
  throw new ResultError(`${fn} returned data of type ${describe(data)}; use a Float32Array, a Float64Array or a number[]`);
}

/** An answer judged by its shape alone (judgedByShape): its values were not read. */
export interface ShapeOnly {
  shape: number[];
}

function readTensor(result: unknown, fn: string, kind: Kind, expect?: readonly number[]): Tensor | ShapeOnly {
  if (Array.isArray(result) || ArrayBuffer.isView(result)) {
    const what = Array.isArray(result) ? (result.some((v) => Array.isArray(v)) ? 'nested arrays' : 'an array') : `a bare ${result.constructor.name}`;
    throw new ResultError(`${fn} returned ${what}; return a Tensor or { shape, data } (e.g. new Tensor(data, shape))`);
  }
  if (typeof result !== 'object' || result === null || !('shape' in result) || !('data' in result)) {
    const hint = result === undefined ? ' (did you forget to return it?)' : '';
    throw new ResultError(`${fn} returned ${result === undefined ? 'undefined' : describe(result)}${hint}; return a Tensor or { shape, data }`);
  }
  const shape = readShape(result, fn);
  if (judgedByShape(shape, expect)) return { shape };
  const data = readData(result.data, fn, kind);
  const size = shape.reduce((a, b) => a * b, 1);
  if (data.length !== size) {
    throw new ResultError(`${fn} returned ${plural(data.length, 'value')} for shape ${formatShape(shape)}, which needs ${size}`);
  }
  return new Tensor(data, shape);
}

/** The graded functions' names as exported by `student/index.ts`. */
export const EXPORT_NAMES = {
  softmax: 'softmax',
  scaled_dot_product_attention: 'scaledDotProductAttention',
  causal_mask: 'causalMask',
  multihead_self_attention: 'multiHeadSelfAttention',
} as const satisfies Record<GradedFunction, string>;

/** The submission file does not export a graded function (vitest and the grader's child alike). */
export function notExported(file: string, name: string): ResultError {
  return new ResultError(`${file} does not export a function named ${name}`);
}

/**
 * What a graded function returned, as a tensor of the kind it must return, or its shape alone when
 * that is not `expect` (the shape promised for the call's inputs) and is larger; throws ResultError
 * saying why not.
 */
export function normaliseReturn(fn: GradedFunction, raw: unknown, expect?: readonly number[]): Tensor | ShapeOnly {
  return readTensor(raw, EXPORT_NAMES[fn], fn === 'causal_mask' ? 'mask' : 'float', expect);
}

/** Explains a non-finite value at a flat offset, e.g. "this row's keys are all masked"; '' when nothing shows why. */
export type NonFiniteHint = (flatIndex: number, shape: readonly number[]) => string;

export function toFloatTensor(result: unknown, fn: string, hint?: NonFiniteHint): Tensor {
  const tensor = readTensor(result, fn, 'float') as Tensor;
  let count = 0;
  let first = -1;
  for (let i = 0; i < tensor.data.length; i++) {
    if (Number.isFinite(tensor.data[i])) continue;
    if (count++ === 0) first = i;
  }
  if (count > 0) {
    const where = formatIndex(unravelIndex(first, tensor.shape));
    const explained = hint?.(first, tensor.shape);
    const why = explained ? ` ${explained}` : '';
    throw new NonFiniteResult(
      `${fn} output has ${formatNumber(tensor.data[first])} at ${where} (${plural(count, 'non-finite value')} in all).${why}`,
    );
  }
  return tensor;
}

export function toMaskTensor(result: unknown, fn: string): Tensor {
  const tensor = readTensor(result, fn, 'mask') as Tensor;
  const bad = tensor.data.findIndex((v) => v !== 0 && v !== 1);
  if (bad >= 0) {
    throw new ResultError(
      `${fn} returned ${formatNumber(tensor.data[bad])} at ${formatIndex(unravelIndex(bad, tensor.shape))}; a mask holds only 0/1 or false/true`,
    );
  }
  return tensor.data instanceof Uint8Array ? tensor : new Tensor(Uint8Array.from(tensor.data), tensor.shape);
}
