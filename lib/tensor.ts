/**
 * A small immutable n-d array playing torch's part for the students: row-major, always
 * contiguous (every op allocates its result; there are no views). It deliberately offers no
 * softmax, attention or triangular masks: those are what the students write.
 */
import { ShapeError } from './errors';
import { gaussian } from './random';
import { broadcastShapes, checkShape, flattenNested, formatShape, parseAxis, sameShape, shapeSize, stridesOf } from './shape';
import type { NestedArray } from './shape';
import { binaryKernel, expandKernel, matmulKernel, permuteKernel, reduceKernel, selectKernel, unaryKernel } from './tensorKernels';
import type { BinaryOp, ReduceOp, UnaryOp } from './tensorKernels';

export type DType = 'float32' | 'float64' | 'bool';
/** Uint8Array holds a bool tensor: 1 is true, 0 is false. */
export type TensorData = Float32Array | Float64Array | Uint8Array;

/**
 * What a graded function may return: a Tensor, or any row-major `{ shape, data }` with data a
 * Float32Array, Float64Array or plain numbers (for a function that returns a mask also a Uint8Array
 * or booleans).
 * The adapters read it and refuse anything else with a message (lib/assignment/returns.ts).
 */
export type TensorLike = Tensor | { shape: readonly number[]; data: TensorData | readonly number[] | readonly boolean[] };
export type { NestedArray };

const ARRAY_TYPES = { float32: Float32Array, float64: Float64Array, bool: Uint8Array } as const;
const alloc = (dtype: DType, n: number): TensorData => new ARRAY_TYPES[dtype](n);
/** Arithmetic never yields bool: a bool operand counts as float32. */
const floatOf = (dtype: DType): DType => (dtype === 'float64' ? 'float64' : 'float32');
const promote = (a: DType, b: DType): DType => (a === 'float64' || b === 'float64' ? 'float64' : 'float32');
const toBool = (v: number | boolean): number => (Number(v) !== 0 ? 1 : 0);

function checkDtype(op: string, dtype: unknown): DType {
  if (dtype === 'float32' || dtype === 'float64' || dtype === 'bool') return dtype;
  throw new ShapeError(`${op}: unknown dtype ${String(dtype)} (expected float32, float64 or bool)`);
}

/**
 * A Tensor as is; a JS number becomes a shape-[] tensor of scalarDtype (the other operand's), so
 * it is rounded as torch rounds a Python scalar and never changes the result dtype.
 */
function operand(op: string, arg: string, value: unknown, scalarDtype: DType): Tensor {
  if (value instanceof Tensor) return value;
  if (typeof value === 'number' || typeof value === 'boolean') {
    return new Tensor(alloc(scalarDtype, 1).fill(scalarDtype === 'bool' ? toBool(value) : Number(value)), []);
  }
  throw new ShapeError(`${op}: ${arg} must be a Tensor or a number, got ${typeof value}`);
}

function filled(op: string, shape: readonly number[], value: number | boolean, dtype: DType): Tensor {
  const dims = checkShape(op, shape);
  const data = alloc(checkDtype(op, dtype), shapeSize(dims));
  return new Tensor(data.fill(dtype === 'bool' ? toBool(value) : Number(value)), dims);
}

/** Indices of a dim to print: all of them, or the first and last 3 around an ellipsis (-1). */
const shownIndices = (size: number): number[] =>
  size <= 6 ? Array.from({ length: size }, (_, i) => i) : [0, 1, 2, -1, size - 3, size - 2, size - 1];

function formatNumber(sci: boolean, v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return sci ? v.toExponential(4).replace(/e([+-])(\d)$/, 'e$10$2') : v.toFixed(4);
}

export class Tensor {
  readonly data: TensorData;
  readonly shape: readonly number[];

  /** Wraps typed arrays without copying; plain arrays become Float64Array (numbers) or bool. */
  constructor(data: TensorData | readonly number[] | readonly boolean[], shape?: readonly number[]) {
    if (data instanceof Float32Array || data instanceof Float64Array || data instanceof Uint8Array) this.data = data;
    else if (Array.isArray(data)) {
      const bad = data.findIndex((v) => typeof v !== 'number' && typeof v !== 'boolean');
      if (bad >= 0) throw new ShapeError(`Tensor: data[${bad}] is ${typeof data[bad]}, expected a number or boolean`);
      this.data = typeof data[0] === 'boolean' ? Uint8Array.from(data, toBool) : Float64Array.from(data, Number);
    } else throw new ShapeError('Tensor: data must be a Float32Array, Float64Array, Uint8Array or an array of numbers');
    const dims = checkShape('Tensor', shape ?? [this.data.length]);
    if (shapeSize(dims) !== this.data.length) {
      throw new ShapeError(`Tensor: data has ${this.data.length} elements but shape ${formatShape(dims)} needs ${shapeSize(dims)}`);
    }
    this.shape = Object.freeze(dims);
  }

  get dtype(): DType {
    return this.data instanceof Float32Array ? 'float32' : this.data instanceof Float64Array ? 'float64' : 'bool';
  }
  get ndim(): number { return this.shape.length; }
  get size(): number { return this.data.length; }

  static zeros(shape: readonly number[], dtype: DType = 'float32'): Tensor { return filled('zeros', shape, 0, dtype); }
  static ones(shape: readonly number[], dtype: DType = 'float32'): Tensor { return filled('ones', shape, 1, dtype); }
  static full(shape: readonly number[], value: number | boolean, dtype: DType = 'float32'): Tensor {
    return filled('full', shape, value, dtype);
  }

  static eye(n: number, dtype: DType = 'float32'): Tensor {
    checkShape('eye', [n]);
    const data = alloc(checkDtype('eye', dtype), n * n);
    for (let i = 0; i < n; i++) data[i * n + i] = 1;
    return new Tensor(data, [n, n]);
  }

  /** float64 like torch.arange over Python floats: start, start+step, … stopping before end. */
  static arange(startOrEnd: number, end?: number, step = 1): Tensor {
    const [start, stop] = end === undefined ? [0, startOrEnd] : [startOrEnd, end];
    if (![start, stop, step].every(Number.isFinite) || step === 0) {
      throw new ShapeError(`arange: start ${start}, end ${stop} and step ${step} must be finite with a nonzero step`);
    }
    const data = new Float64Array(Math.max(0, Math.ceil((stop - start) / step)));
    for (let i = 0; i < data.length; i++) data[i] = start + i * step;
    return new Tensor(data);
  }

  /** From nested arrays; all-boolean input gives a bool tensor unless a dtype is passed. */
  static fromNested(nested: NestedArray, dtype?: DType): Tensor {
    const { shape, leaves } = flattenNested('fromNested', nested);
    const type = checkDtype('fromNested', dtype ?? (leaves.length && leaves.every((v) => typeof v === 'boolean') ? 'bool' : 'float32'));
    const data = alloc(type, leaves.length);
    leaves.forEach((v, i) => { data[i] = type === 'bool' ? toBool(v) : Number(v); });
    return new Tensor(data, shape);
  }

  /** Standard normal samples, reproducible from the seed (see lib/random.ts). */
  static randn(shape: readonly number[], seed: string | number, dtype: DType = 'float32'): Tensor {
    if (checkDtype('randn', dtype) === 'bool') throw new ShapeError('randn: dtype must be float32 or float64, got bool');
    const dims = checkShape('randn', shape);
    const samples = gaussian(shapeSize(dims), seed);
    return new Tensor(dtype === 'float64' ? samples : new Float32Array(samples), dims);
  }

  /** Elementwise cond ? a : b with cond, a and b broadcast together; cond is true where nonzero. */
  static where(cond: Tensor, a: Tensor | number, b: Tensor | number): Tensor {
    if (!(cond instanceof Tensor)) throw new ShapeError(`where: cond must be a Tensor, got ${typeof cond}`);
    const tensors = [a, b].filter((x): x is Tensor => x instanceof Tensor);
    const dtype = tensors.some((t) => t.dtype === 'float64') ? 'float64'
      : tensors.length === 2 && tensors.every((t) => t.dtype === 'bool') ? 'bool' : 'float32';
    const [ta, tb] = [operand('where', 'a', a, dtype), operand('where', 'b', b, dtype)];
    let outShape: number[];
    try {
      outShape = broadcastShapes('where', broadcastShapes('where', cond.shape, ta.shape), tb.shape);
    } catch {
      const [c, x, y] = [cond, ta, tb].map((t) => formatShape(t.shape));
      throw new ShapeError(`where: shapes ${c} (cond), ${x} (a) and ${y} (b) cannot broadcast together`);
    }
    const n = shapeSize(outShape);
    const [c, x, y] = [cond, ta, tb].map((t) => (t.size === n ? t.data : expandKernel(t.data, t.shape, outShape, alloc(t.dtype, n))));
    return new Tensor(selectKernel(c, x, y, alloc(dtype, n)), outShape);
  }

  get(...index: number[]): number {
    const shape = formatShape(this.shape);
    if (index.length !== this.ndim) throw new ShapeError(`get: shape ${shape} needs ${this.ndim} indices, got ${index.length}`);
    const strides = stridesOf(this.shape);
    let flat = 0;
    index.forEach((i, d) => {
      const size = this.shape[d];
      if (!Number.isInteger(i) || i < -size || i >= size) {
        throw new ShapeError(`get: index ${i} out of range for dim ${d} of shape ${shape} (valid: ${-size}..${size - 1})`);
      }
      flat += (i < 0 ? i + size : i) * strides[d];
    });
    return this.data[flat];
  }

  item(): number {
    if (this.size !== 1) throw new ShapeError(`item: shape ${formatShape(this.shape)} has ${this.size} elements, expected 1`);
    return this.data[0];
  }

  toArray(): NestedArray {
    const strides = stridesOf(this.shape);
    const build = (d: number, offset: number): NestedArray => {
      if (d === this.ndim) return this.dtype === 'bool' ? this.data[offset] !== 0 : this.data[offset];
      return Array.from({ length: this.shape[d] }, (_, i) => build(d + 1, offset + i * strides[d]));
    };
    return build(0, 0);
  }

  /** New shape with the same elements in the same order; one dim may be -1 (inferred). */
  reshape(shape: readonly number[]): Tensor;
  reshape(...dims: number[]): Tensor;
  reshape(...args: (number | readonly number[])[]): Tensor {
    const dims = (Array.isArray(args[0]) ? [...(args[0] as number[])] : args) as number[];
    const fail = (why: string) => new ShapeError(`reshape: cannot reshape shape ${formatShape(this.shape)} (${this.size} elements) to ${formatShape(dims)}${why}`);
    if (!dims.every((d) => Number.isInteger(d) && d >= -1)) throw fail(': dims must be non-negative integers or one -1');
    const wild = dims.indexOf(-1);
    if (wild !== dims.lastIndexOf(-1)) throw fail(': only one dim may be -1');
    const known = shapeSize(dims.filter((d) => d !== -1));
    if (wild >= 0) {
      if (known === 0 || this.size % known !== 0) throw fail(known === 0 ? ': -1 is ambiguous next to a 0 dim' : '');
      dims[wild] = this.size / known;
    } else if (known !== this.size) throw fail('');
    return new Tensor(this.data.slice(), dims);
  }

  transpose(dim0: number, dim1: number): Tensor {
    const [a, b] = [parseAxis('transpose', dim0, this.shape), parseAxis('transpose', dim1, this.shape)];
    const perm = this.shape.map((_, i) => (i === a ? b : i === b ? a : i));
    return this.permuted(perm);
  }

  /** Reorders dims: result dim i is this tensor's dim dims[i]. */
  permute(...dims: number[]): Tensor {
    const perm = dims.map((d) => parseAxis('permute', d, this.shape));
    if (perm.length !== this.ndim || new Set(perm).size !== perm.length) {
      throw new ShapeError(`permute: dims ${formatShape(dims)} are not a permutation of the ${this.ndim} dims of shape ${formatShape(this.shape)}`);
    }
    return this.permuted(perm);
  }

  unsqueeze(dim: number): Tensor {
    const axis = parseAxis('unsqueeze', dim, this.shape, this.ndim + 1);
    return new Tensor(this.data.slice(), [...this.shape.slice(0, axis), 1, ...this.shape.slice(axis)]);
  }

  /** Removes a size-1 dim (all of them when dim is omitted); squeezing a larger dim is refused. */
  squeeze(dim?: number): Tensor {
    if (dim === undefined) return new Tensor(this.data.slice(), this.shape.filter((d) => d !== 1));
    const axis = parseAxis('squeeze', dim, this.shape);
    if (this.shape[axis] !== 1) throw new ShapeError(`squeeze: dim ${dim} of shape ${formatShape(this.shape)} has size ${this.shape[axis]}, not 1`);
    return new Tensor(this.data.slice(), this.shape.filter((_, i) => i !== axis));
  }

  astype(dtype: DType): Tensor {
    return this.unary(checkDtype('astype', dtype) === 'bool' ? 'bool' : 'copy', dtype);
  }
  clone(): Tensor { return new Tensor(this.data.slice(), this.shape); }

  add(other: Tensor | number): Tensor { return this.binary('add', other); }
  sub(other: Tensor | number): Tensor { return this.binary('sub', other); }
  mul(other: Tensor | number): Tensor { return this.binary('mul', other); }
  div(other: Tensor | number): Tensor { return this.binary('div', other); }
  neg(): Tensor { return this.unary('neg', floatOf(this.dtype)); }
  exp(): Tensor { return this.unary('exp', floatOf(this.dtype)); }
  log(): Tensor { return this.unary('log', floatOf(this.dtype)); }
  sqrt(): Tensor { return this.unary('sqrt', floatOf(this.dtype)); }
  abs(): Tensor { return this.unary('abs', floatOf(this.dtype)); }

  eq(other: Tensor | number): Tensor { return this.binary('eq', other); }
  ne(other: Tensor | number): Tensor { return this.binary('ne', other); }
  lt(other: Tensor | number): Tensor { return this.binary('lt', other); }
  le(other: Tensor | number): Tensor { return this.binary('le', other); }
  gt(other: Tensor | number): Tensor { return this.binary('gt', other); }
  ge(other: Tensor | number): Tensor { return this.binary('ge', other); }
  logicalNot(): Tensor { return this.unary('not', 'bool'); }
  logicalAnd(other: Tensor | number | boolean): Tensor { return this.binary('and', other, 'logicalAnd'); }
  logicalOr(other: Tensor | number | boolean): Tensor { return this.binary('or', other, 'logicalOr'); }
  isNaN(): Tensor { return this.unary('isnan', 'bool'); }

  /** Without dim: over all elements to shape [] (keepdim ignored). NaN propagates. */
  max(dim?: number, keepdim = false): Tensor { return this.reduce('max', dim, keepdim); }
  min(dim?: number, keepdim = false): Tensor { return this.reduce('min', dim, keepdim); }
  sum(dim?: number, keepdim = false): Tensor { return this.reduce('sum', dim, keepdim); }
  mean(dim?: number, keepdim = false): Tensor { return this.reduce('mean', dim, keepdim); }

  /** [..., n, k] @ [..., k, m] → [..., n, m]; the leading (batch) dims broadcast. */
  matmul(other: Tensor): Tensor {
    if (!(other instanceof Tensor)) throw new ShapeError(`matmul: other must be a Tensor, got ${typeof other}`);
    const [a, b] = [this.shape, other.shape];
    const shapes = `shapes ${formatShape(a)} and ${formatShape(b)}`;
    if (a.length < 2 || b.length < 2) throw new ShapeError(`matmul: both operands need at least 2 dims, got ${shapes}`);
    const [k, k2] = [a[a.length - 1], b[b.length - 2]];
    if (k !== k2) throw new ShapeError(`matmul: inner dims ${k} and ${k2} of ${shapes} must match`);
    let batch: number[];
    try {
      batch = broadcastShapes('matmul', a.slice(0, -2), b.slice(0, -2));
    } catch {
      throw new ShapeError(`matmul: batch dims of ${shapes} cannot broadcast (${formatShape(a.slice(0, -2))} vs ${formatShape(b.slice(0, -2))})`);
    }
    const outShape = [...batch, a[a.length - 2], b[b.length - 1]];
    const out = alloc(promote(this.dtype, other.dtype), shapeSize(outShape));
    return new Tensor(matmulKernel(this.data, a, other.data, b, outShape, out), outShape);
  }

  /** value where mask is nonzero; mask must broadcast to this tensor's shape without enlarging it. */
  maskedFill(mask: Tensor, value: number | boolean): Tensor {
    if (!(mask instanceof Tensor)) throw new ShapeError(`maskedFill: mask must be a Tensor, got ${typeof mask}`);
    let fits = false;
    try {
      fits = sameShape(broadcastShapes('maskedFill', this.shape, mask.shape), this.shape);
    } catch { /* reported below with both shapes */ }
    if (!fits) throw new ShapeError(`maskedFill: mask shape ${formatShape(mask.shape)} cannot broadcast to tensor shape ${formatShape(this.shape)}`);
    return Tensor.where(mask, operand('maskedFill', 'value', value, this.dtype), this);
  }

  toString(): string {
    const header = `Tensor(shape=${formatShape(this.shape)}, dtype=${this.dtype})`;
    const strides = stridesOf(this.shape);
    const shown: number[] = [];
    const collect = (d: number, offset: number): void => {
      if (d === this.ndim) shown.push(this.data[offset]);
      else for (const i of shownIndices(this.shape[d])) if (i >= 0) collect(d + 1, offset + i * strides[d]);
    };
    collect(0, 0);
    // One notation and width for the whole tensor so columns line up, as torch prints them.
    const finite = shown.filter((v) => Number.isFinite(v) && v !== 0).map(Math.abs);
    const sci = finite.some((v) => v >= 1e8 || v < 1e-4);
    const cells = shown.map((v) => (this.dtype === 'bool' ? String(v !== 0) : formatNumber(sci, v)));
    const width = cells.reduce((w, c) => Math.max(w, c.length), 0);
    let next = 0;
    const render = (d: number, offset: number): string => {
      if (d === this.ndim) return cells[next++].padStart(width);
      const parts = shownIndices(this.shape[d]).map((i) => (i < 0 ? '...' : render(d + 1, offset + i * strides[d])));
      return `[${parts.join(d === this.ndim - 1 ? ', ' : `,${'\n'.repeat(this.ndim - d - 1)}${' '.repeat(d + 1)}`)}]`;
    };
    return `${header}\n${render(0, 0)}`;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string { return this.toString(); }

  private binary(op: BinaryOp, other: Tensor | number | boolean, name: string = op): Tensor {
    const logical = op === 'and' || op === 'or';
    const b = operand(name, 'other', other, logical ? 'bool' : floatOf(this.dtype));
    const outShape = broadcastShapes(name, this.shape, b.shape);
    const compare = logical || !(op === 'add' || op === 'sub' || op === 'mul' || op === 'div');
    const out = alloc(compare ? 'bool' : promote(this.dtype, b.dtype), shapeSize(outShape));
    return new Tensor(binaryKernel(op, this.data, this.shape, b.data, b.shape, outShape, out), outShape);
  }

  private unary(op: UnaryOp, dtype: DType): Tensor {
    return new Tensor(unaryKernel(op, this.data, alloc(dtype, this.size)), this.shape);
  }

  private permuted(perm: number[]): Tensor {
    const out = permuteKernel(this.data, this.shape, perm, alloc(this.dtype, this.size));
    return new Tensor(out, perm.map((p) => this.shape[p]));
  }

  private reduce(op: ReduceOp, dim: number | undefined, keepdim: boolean): Tensor {
    const dtype = op === 'sum' || op === 'mean' ? floatOf(this.dtype) : this.dtype;
    const axis = dim === undefined ? -1 : parseAxis(op, dim, this.shape);
    const length = axis < 0 ? this.size : this.shape[axis];
    if (length === 0 && (op === 'max' || op === 'min')) {
      throw new ShapeError(`${op}: cannot reduce ${axis < 0 ? 'all' : `dim ${dim}`} of shape ${formatShape(this.shape)}: it has no elements`);
    }
    const outer = axis < 0 ? 1 : shapeSize(this.shape.slice(0, axis));
    const inner = axis < 0 ? 1 : shapeSize(this.shape.slice(axis + 1));
    const shape = axis < 0 ? [] : keepdim ? this.shape.map((d, i) => (i === axis ? 1 : d)) : this.shape.filter((_, i) => i !== axis);
    return new Tensor(reduceKernel(op, this.data, outer, length, inner, alloc(dtype, outer * inner)), shape);
  }
}
