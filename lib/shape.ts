import { ShapeError } from './errors';

/** A copy of shape after checking it is an array of non-negative integer dims. */
export function checkShape(op: string, shape: readonly number[]): number[] {
  if (!Array.isArray(shape)) throw new ShapeError(`${op}: shape must be an array of dims, got ${String(shape)}`);
  const bad = shape.find((d) => !Number.isInteger(d) || d < 0);
  if (bad !== undefined) throw new ShapeError(`${op}: shape ${formatShape(shape)} has dim ${bad}; dims must be non-negative integers`);
  return [...shape];
}

/** Number of elements in a tensor of this shape (1 for the scalar shape []). */
export function shapeSize(shape: readonly number[]): number {
  let size = 1;
  for (const dim of shape) size *= dim;
  return size;
}

/** Compact form used in every error message, e.g. "[2,3,4]". */
export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}

/**
 * Turns a possibly negative dim into an index in 0..ndim-1. `ndim` defaults to the shape's rank;
 * unsqueeze passes rank + 1 because it may insert after the last dim.
 */
export function parseAxis(op: string, dim: number, shape: readonly number[], ndim = shape.length): number {
  if (Number.isInteger(dim) && dim >= -ndim && dim < ndim) return dim < 0 ? dim + ndim : dim;
  const valid = ndim === 0 ? 'a 0-d tensor has no dims' : `valid: ${-ndim}..${ndim - 1}`;
  throw new ShapeError(`${op}: dim ${dim} out of range for shape ${formatShape(shape)} (${valid})`);
}

/** Result shape of broadcasting a with b under numpy/torch rules (align right; 1 stretches). */
export function broadcastShapes(op: string, a: readonly number[], b: readonly number[]): number[] {
  const ndim = Math.max(a.length, b.length);
  const out = new Array<number>(ndim);
  for (let i = 1; i <= ndim; i++) {
    const da = i <= a.length ? a[a.length - i] : 1;
    const db = i <= b.length ? b[b.length - i] : 1;
    if (da !== db && da !== 1 && db !== 1) {
      throw new ShapeError(
        `${op}: shapes ${formatShape(a)} and ${formatShape(b)} cannot broadcast (dim -${i}: ${da} vs ${db})`,
      );
    }
    out[ndim - i] = da === 1 ? db : da;
  }
  return out;
}

/** Row-major (C order) element strides. */
export function stridesOf(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let stride = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

/**
 * Strides for reading `shape` as if it had been broadcast to `outShape` (which must be a valid
 * broadcast of it): missing leading dims and stretched size-1 dims get stride 0, so one index walks
 * both the output and the input.
 */
export function broadcastStrides(shape: readonly number[], outShape: readonly number[]): number[] {
  const own = stridesOf(shape);
  const lead = outShape.length - shape.length;
  const strides = new Array<number>(outShape.length).fill(0);
  for (let i = 0; i < shape.length; i++) strides[lead + i] = shape[i] === 1 ? 0 : own[i];
  return strides;
}

/** True when both shapes have the same rank and dims. */
export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((dim, i) => dim === b[i]);
}

/** Nested arrays as accepted by Tensor.fromNested and returned by toArray (a bare leaf for shape []). */
export type NestedArray = number | boolean | NestedArray[];

/**
 * Shape (read down the first elements) and row-major leaves of a nested array; any sub-array whose
 * length or depth disagrees with that shape is refused, naming where it sits.
 */
export function flattenNested(op: string, nested: NestedArray): { shape: number[]; leaves: (number | boolean)[] } {
  const shape: number[] = [];
  for (let level = nested; Array.isArray(level); level = level[0]) {
    shape.push(level.length);
    if (level.length === 0) break;
  }
  const leaves: (number | boolean)[] = [];
  const path: number[] = [];
  const walk = (node: NestedArray, d: number): void => {
    const isLeaf = typeof node === 'number' || typeof node === 'boolean';
    if (d === shape.length && isLeaf) leaves.push(node);
    else if (d < shape.length && Array.isArray(node) && node.length === shape[d]) {
      node.forEach((child, i) => {
        path.push(i);
        walk(child, d + 1);
        path.pop();
      });
    } else {
      const got = Array.isArray(node) ? `${node.length} elements` : isLeaf ? 'a number' : typeof node;
      const want = d === shape.length ? 'a number' : `${shape[d]} elements`;
      throw new ShapeError(`${op}: ragged nested array at [${path.join(',')}]: expected ${want}, got ${got}`);
    }
  };
  walk(nested, 0);
  return { shape, leaves };
}
