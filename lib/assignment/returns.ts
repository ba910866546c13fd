/**
 * Reads what a graded function returned, per the contract: for each part a Tensor or any
 * `{ shape, data }` with row-major data (Float32Array, Float64Array, plain numbers; for masks also
 * Uint8Array and booleans), and for a tuple an object holding each part in its named field.
 * Anything else is refused with a message a student can act on.
 *
 * Two steps, so that npm test and the grader say the same words: `readReturn` (tensors of the
 * right kind, or why not) runs where the student's function ran: in process under npm test, in the
 * grader's child, which sends the tensors on. The value checks (finite, 0/1, integers) then run
 * where the verdict is made: `checkPart` repeats the first step on what arrived, which changes
 * nothing for an honest child and refuses a forged message in the same words.
 */
import { NonFiniteResult, ResultError } from '../errors';
import { formatIndex, formatNumber, plural, unravelIndex } from '../format';
import { formatShape } from '../shape';
import { Tensor } from '../tensor';
import { partsOfCall, type FunctionSpec, type PartKind, type PartSpec } from './functions';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name}`;
  return typeof value === 'object' ? `an object without ${'shape' in value ? 'data' : 'shape'}` : `a ${typeof value}`;
}

function readShape(result: { shape: unknown }, what: string): number[] {
  const shape = result.shape;
  const ok =
    (Array.isArray(shape) || ArrayBuffer.isView(shape)) &&
    Array.from(shape as ArrayLike<unknown>).every((n) => Number.isInteger(n) && (n as number) >= 0);
  if (!ok) throw new ResultError(`${what} returned a shape that is not a list of non-negative integers: ${String(shape)}`);
  return Array.from(shape as ArrayLike<number>);
}

const HOLDS: Record<PartKind, string> = { float: 'numbers', mask: 'numbers or booleans', index: 'integers' };

function readData(data: unknown, what: string, kind: PartKind): Float32Array | Float64Array | Uint8Array {
  if (data instanceof Float32Array || data instanceof Float64Array) return data.slice();
  if (data instanceof Uint8Array && kind === 'mask') return data.slice();
  if (data instanceof Int32Array && kind === 'index') return Float64Array.from(data);
  if (data instanceof Uint8Array) {
    throw new ResultError(`${what} returned boolean data (Uint8Array); it must return float values (Float32Array, Float64Array or numbers)`);
  }
  if (Array.isArray(data)) {
    if (data.some((v) => Array.isArray(v))) {
      throw new ResultError(`${what} returned nested arrays as data; data must be flat, in row-major order (try .flat(Infinity))`);
    }
    const bad = data.findIndex((v) => typeof v !== 'number' && !(kind === 'mask' && typeof v === 'boolean'));
    if (bad >= 0) throw new ResultError(`${what} returned data with a ${typeof data[bad]} at position ${bad}; data must hold ${HOLDS[kind]}`);
    return Float64Array.from(data, Number);
  }
  const typed = kind === 'index' ? 'an Int32Array, a Float64Array or a number[]' : 'a Float32Array, a Float64Array or a number[]';
  throw new ResultError(`${what} returned data of type ${describe(data)}; use ${typed}`);
}

/** An answer judged by its shape alone (judgedByShape): its values were not read. */
export interface ShapeOnly {
  shape: number[];
}

/** A part as read: its values, or its shape alone. */
export type PartValue = Tensor | ShapeOnly;

/** What a call returned, read: one value per part of the function's spec, by part name, in the spec's order. */
export type Returned = ReadonlyArray<{ name: string; value: PartValue }>;

/**
 * Whether an answer of `shape` is judged by its shape alone, its values neither read nor sent:
 * when it is not the promised shape and holds more elements. So no answer costs the grader more
 * to carry than a right one (a 200-million-element tensor once took longer than the whole budget,
 * and was refused as an oversized message rather than named as a wrong shape).
 */
export function judgedByShape(shape: readonly number[], expect: readonly number[] | undefined): boolean {
  if (!expect) return false;
  const size = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);
  return (shape.length !== expect.length || shape.some((n, i) => n !== expect[i])) && size(shape) > size(expect);
}

function readTensor(result: unknown, what: string, kind: PartKind, expect?: readonly number[]): PartValue {
  if (Array.isArray(result) || ArrayBuffer.isView(result)) {
    const form = Array.isArray(result) ? (result.some((v) => Array.isArray(v)) ? 'nested arrays' : 'an array') : `a bare ${result.constructor.name}`;
    throw new ResultError(`${what} returned ${form}; return a Tensor or { shape, data } (e.g. new Tensor(data, shape))`);
  }
  if (typeof result !== 'object' || result === null || !('shape' in result) || !('data' in result)) {
    const hint = result === undefined ? ' (did you forget to return it?)' : '';
    throw new ResultError(`${what} returned ${result === undefined ? 'undefined' : describe(result)}${hint}; return a Tensor or { shape, data }`);
  }
  const shape = readShape(result, what);
  if (judgedByShape(shape, expect)) return { shape };
  const data = readData(result.data, what, kind);
  const size = shape.reduce((a, b) => a * b, 1);
  if (data.length !== size) throw new ResultError(`${what} returned ${plural(data.length, 'value')} for shape ${formatShape(shape)}, which needs ${size}`);
  return new Tensor(data, shape);
}

/** How a part is named in messages: the export alone for a single tensor, `attention(...).weights` for a tuple's part. */
export function partLabel(spec: FunctionSpec, part: PartSpec): string {
  return spec.returns.tuple ? `${spec.export}'s ${part.name}` : spec.export;
}

/** The submission file does not export a graded function (npm test and the grader's child alike). */
export function notExported(file: string, name: string): ResultError {
  return new ResultError(`${file} does not export a function named ${name}`);
}

/**
 * What a graded function returned, each part the call asks for (partsOfCall: `params` are the
 * call's) a tensor of the kind it must be, or its shape alone when that is not the promised one
 * (`expect`, by part, from the call's inputs) and is larger; throws ResultError saying why not. A
 * part the call leaves out must be absent, undefined or null.
 */
export function readReturn(spec: FunctionSpec, raw: unknown, expect?: readonly (readonly number[] | undefined)[], params: Readonly<Record<string, number>> = {}): Returned {
  if (!spec.returns.tuple) return [{ name: spec.returns.part.name, value: readTensor(raw, spec.export, spec.returns.part.kind, expect?.[0]) }];
  const parts = partsOfCall(spec, params);
  const fields = parts.map((p) => p.name).join(', ');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || ArrayBuffer.isView(raw)) {
    throw new ResultError(`${spec.export} returned ${raw === undefined ? 'undefined' : describe(raw)}; return an object { ${fields} } of tensors`);
  }
  const record = raw as Record<string, unknown>;
  for (const left of spec.returns.parts.filter((p) => !parts.includes(p))) {
    const value = record[left.name];
    if (value !== undefined && value !== null) {
      throw new ResultError(`${spec.export} returned ${left.name} when the call set ${left.omittedWhenFalse} to false; leave ${left.name} out then (or undefined), return { ${fields} }`);
    }
  }
  return parts.map((part, i) => {
    if (!(part.name in record)) throw new ResultError(`${spec.export} returned an object without ${part.name}; return { ${fields} }`);
    return { name: part.name, value: readTensor(record[part.name], partLabel(spec, part), part.kind, expect?.[i]) };
  });
}

/** Explains a non-finite value at a flat offset, e.g. "this row's keys are all masked"; '' when nothing shows why. */
export type NonFiniteHint = (flatIndex: number, shape: readonly number[]) => string;

/**
 * A part as it arrived, read again and its values checked for its kind: finite floats, a 0/1 mask
 * (returned as a Uint8Array tensor), integer indices. Throws ResultError (NonFiniteResult for a
 * NaN or an infinity, a wrong answer rather than an unreadable one).
 */
export function checkPart(spec: FunctionSpec, part: PartSpec, raw: unknown, hint?: NonFiniteHint): Tensor {
  const what = partLabel(spec, part);
  const tensor = readTensor(raw, what, part.kind) as Tensor;
  const { data, shape } = tensor;
  if (part.kind === 'mask') {
    const bad = data.findIndex((v) => v !== 0 && v !== 1);
    if (bad >= 0) throw new ResultError(`${what} returned ${formatNumber(data[bad])} at ${formatIndex(unravelIndex(bad, shape))}; a mask holds only 0/1 or false/true`);
    return data instanceof Uint8Array ? tensor : new Tensor(Uint8Array.from(data), shape);
  }
  let count = 0;
  let first = -1;
  for (let i = 0; i < data.length; i++) {
    if (Number.isFinite(data[i])) continue;
    if (count++ === 0) first = i;
  }
  if (count > 0) {
    const explained = hint?.(first, shape);
    throw new NonFiniteResult(
      `${what} output has ${formatNumber(data[first])} at ${formatIndex(unravelIndex(first, shape))} (${plural(count, 'non-finite value')} in all).${explained ? ` ${explained}` : ''}`,
    );
  }
  if (part.kind === 'index') {
    const bad = data.findIndex((v) => !Number.isInteger(v));
    if (bad >= 0) throw new ResultError(`${what} returned ${formatNumber(data[bad])} at ${formatIndex(unravelIndex(bad, shape))}; indices are whole numbers`);
  }
  return tensor;
}

