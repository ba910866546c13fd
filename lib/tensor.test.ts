import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ShapeError } from './errors';
import { gaussian } from './random';
import { broadcastShapes, formatShape, parseAxis, shapeSize, stridesOf } from './shape';
import { Tensor } from './tensor';

/** Asserts fn throws a ShapeError whose message contains every part. */
function expectShapeError(fn: () => unknown, ...parts: string[]): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ShapeError);
  for (const part of parts) expect((caught as Error).message).toContain(part);
}

/** Plain-loop reference for matmul with batch broadcasting, summing k in ascending order. */
function naiveMatmul(a: Tensor, b: Tensor): { shape: number[]; values: number[] } {
  const [n, k, m] = [a.shape[a.ndim - 2], a.shape[a.ndim - 1], b.shape[b.ndim - 1]];
  const batch = broadcastShapes('test', a.shape.slice(0, -2), b.shape.slice(0, -2));
  const values: number[] = [];
  const pick = (t: Tensor, index: number[]): number[] => index.slice(index.length - (t.ndim - 2)).map((v, d) => (t.shape[d] === 1 ? 0 : v));
  for (let flat = 0; flat < shapeSize(batch); flat++) {
    const index = batch.map((_, d) => Math.floor(flat / shapeSize(batch.slice(d + 1))) % batch[d]);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < m; j++) {
        let acc = 0;
        for (let p = 0; p < k; p++) acc += a.get(...pick(a, index), i, p) * b.get(...pick(b, index), p, j);
        values.push(acc);
      }
    }
  }
  return { shape: [...batch, n, m], values };
}

/**
 * Two shapes that broadcast together: up to `dims` trailing dims of a drawn shape, each dim of
 * each operand the drawn one or 1, and either operand may lack leading dims.
 */
const broadcastPair = (dims: number, maxSize: number) =>
  fc.array(fc.integer({ min: 0, max: maxSize }), { maxLength: dims }).chain((full) =>
    fc.tuple(
      fc.array(fc.boolean(), { minLength: full.length, maxLength: full.length }),
      fc.array(fc.boolean(), { minLength: full.length, maxLength: full.length }),
      fc.nat({ max: full.length }),
      fc.nat({ max: full.length }),
    ).map(([oneA, oneB, dropA, dropB]) => ({
      full,
      a: full.map((d, i) => (oneA[i] ? 1 : d)).slice(dropA),
      b: full.map((d, i) => (oneB[i] && !oneA[i] ? 1 : d)).slice(dropB),
    })));

/** The shape two broadcastable shapes make, by the rule itself: dims paired from the right, a missing or size-1 dim taking the other's. */
function broadcastOf(a: readonly number[], b: readonly number[]): number[] {
  const length = Math.max(a.length, b.length);
  const at = (shape: readonly number[], d: number) => shape[d - (length - shape.length)] ?? 1;
  return Array.from({ length }, (_, d) => (at(a, d) === 1 ? at(b, d) : at(a, d)));
}

/** The element of `t` that broadcasts onto `index` of a result of `ndim` dims. */
const broadcastGet = (t: Tensor, index: number[]): number => t.get(...index.slice(index.length - t.ndim).map((v, d) => (t.shape[d] === 1 ? 0 : v)));

/** Every index of a shape, in row-major order. */
function* indices(shape: readonly number[]): Generator<number[]> {
  for (let flat = 0; flat < shapeSize(shape); flat++) yield shape.map((_, d) => Math.floor(flat / shapeSize(shape.slice(d + 1))) % shape[d]);
}

describe('shape helpers', () => {
  it('formats shapes compactly and computes sizes and row-major strides', () => {
    expect(formatShape([2, 3, 4])).toBe('[2,3,4]');
    expect(formatShape([])).toBe('[]');
    expect(shapeSize([])).toBe(1);
    expect(shapeSize([2, 0, 3])).toBe(0);
    expect(stridesOf([2, 3, 4])).toEqual([12, 4, 1]);
  });

  it('parseAxis turns negative dims positive and refuses out-of-range dims naming op and shape', () => {
    expect(parseAxis('sum', -1, [2, 3])).toBe(1);
    expect(parseAxis('sum', -2, [2, 3])).toBe(0);
    expect(() => parseAxis('transpose', 3, [2, 3])).toThrow(ShapeError);
    expect(() => parseAxis('transpose', 3, [2, 3])).toThrow('transpose: dim 3 out of range for shape [2,3] (valid: -2..1)');
    expectShapeError(() => parseAxis('max', -3, [2, 3]), 'max: dim -3', '[2,3]');
    expectShapeError(() => parseAxis('max', 0.5, [2, 3]), 'dim 0.5');
  });

  it('broadcastShapes: [3,1] with [1,4] gives [3,4]; missing leading dims count as 1', () => {
    expect(broadcastShapes('add', [3, 1], [1, 4])).toEqual([3, 4]);
    expect(broadcastShapes('add', [2, 1, 3], [4, 1])).toEqual([2, 4, 3]);
    expect(broadcastShapes('add', [], [2, 3])).toEqual([2, 3]);
    expect(broadcastShapes('add', [0, 3], [1, 3])).toEqual([0, 3]);
  });

  it('broadcastShapes refuses incompatible dims with the exact message', () => {
    expect(() => broadcastShapes('add', [2, 3], [4])).toThrow('add: shapes [2,3] and [4] cannot broadcast (dim -1: 3 vs 4)');
    expectShapeError(() => broadcastShapes('mul', [0], [2]), 'mul: shapes [0] and [2]', 'dim -1: 0 vs 2');
  });
});

describe('constructor and creation', () => {
  it('plain numbers become float64, booleans bool; default shape is [length]', () => {
    const t = new Tensor([1, 2, 3]);
    expect(t.dtype).toBe('float64');
    expect(t.shape).toEqual([3]);
    expect(t.ndim).toBe(1);
    expect(t.size).toBe(3);
    const b = new Tensor([true, false]);
    expect(b.dtype).toBe('bool');
    expect([...b.data]).toEqual([1, 0]);
  });

  it('wraps typed arrays without copying and stores a frozen copy of the shape', () => {
    const data = new Float32Array(6);
    const shape = [2, 3];
    const t = new Tensor(data, shape);
    expect(t.data).toBe(data);
    expect(t.dtype).toBe('float32');
    shape[0] = 99;
    expect(t.shape).toEqual([2, 3]);
    expect(Object.isFrozen(t.shape)).toBe(true);
  });

  it('refuses a shape whose size differs from the data length, and bad dims', () => {
    expect(() => new Tensor(new Float32Array(6), [2, 4])).toThrow(ShapeError);
    expect(() => new Tensor(new Float32Array(6), [2, 4])).toThrow('Tensor: data has 6 elements but shape [2,4] needs 8');
    expectShapeError(() => new Tensor(new Float32Array(6), [-2, -3]), 'Tensor', '[-2,-3]');
    expectShapeError(() => new Tensor(new Float32Array(6), [2, 3.5]), 'Tensor', '3.5');
    expectShapeError(() => new Tensor(['a'] as unknown as number[]), 'Tensor', 'data[0]');
    expectShapeError(() => new Tensor(new Int32Array(2) as unknown as Float32Array), 'Tensor');
  });

  it('zeros, ones, full and eye default to float32 and honour dtype', () => {
    expect(Tensor.zeros([2, 3]).dtype).toBe('float32');
    expect([...Tensor.ones([2], 'float64').data]).toEqual([1, 1]);
    expect(Tensor.ones([2], 'float64').dtype).toBe('float64');
    expect(Tensor.full([2, 2], 7).toArray()).toEqual([[7, 7], [7, 7]]);
    expect(Tensor.full([2], 3, 'bool').toArray()).toEqual([true, true]);
    expect(Tensor.eye(3).toArray()).toEqual([[1, 0, 0], [0, 1, 0], [0, 0, 1]]);
    expect(Tensor.zeros([]).shape).toEqual([]);
    expectShapeError(() => Tensor.zeros([2, -1]), 'zeros', '[2,-1]');
    expectShapeError(() => Tensor.zeros([2], 'int32' as 'float32'), 'int32');
  });

  it('arange(n) and arange(start, end, step) are float64 and stop before end', () => {
    const a = Tensor.arange(4);
    expect(a.dtype).toBe('float64');
    expect(a.toArray()).toEqual([0, 1, 2, 3]);
    expect(Tensor.arange(1, 2, 0.25).toArray()).toEqual([1, 1.25, 1.5, 1.75]);
    expect(Tensor.arange(3, 0, -1).toArray()).toEqual([3, 2, 1]);
    expect(Tensor.arange(2, 1).size).toBe(0);
    expectShapeError(() => Tensor.arange(0, 1, 0), 'arange', 'step 0');
  });

  it('fromNested infers the shape, defaults to float32 and makes all-boolean input bool', () => {
    const t = Tensor.fromNested([[1, 2, 3], [4, 5, 6]]);
    expect(t.shape).toEqual([2, 3]);
    expect(t.dtype).toBe('float32');
    expect(t.get(1, 2)).toBe(6);
    expect(Tensor.fromNested([[true], [false]]).dtype).toBe('bool');
    expect(Tensor.fromNested([[true], [false]], 'float64').toArray()).toEqual([[1], [0]]);
    expect(Tensor.fromNested(5).shape).toEqual([]);
    expect(Tensor.fromNested([[], []]).shape).toEqual([2, 0]);
  });

  it('fromNested refuses ragged input, naming where', () => {
    expect(() => Tensor.fromNested([[1, 2, 3], [4, 5]])).toThrow('fromNested: ragged nested array at [1]: expected 3 elements, got 2 elements');
    expectShapeError(() => Tensor.fromNested([[1, 2], 3]), 'fromNested', '[1]', 'got a number');
    expectShapeError(() => Tensor.fromNested([[1, 2], [3, [4]]]), 'fromNested', '[1,1]', 'expected a number');
  });

  it('randn is reproducible from the seed and draws from gaussian()', () => {
    const a = Tensor.randn([3, 4], 'seed-1');
    expect(a.dtype).toBe('float32');
    expect([...a.data]).toEqual([...new Float32Array(gaussian(12, 'seed-1'))]);
    expect([...Tensor.randn([3, 4], 'seed-1').data]).toEqual([...a.data]);
    expect(Tensor.randn([5], 7, 'float64').data).toEqual(gaussian(5, 7));
    expectShapeError(() => Tensor.randn([2], 1, 'bool'), 'randn', 'bool');
  });
});

describe('element access', () => {
  const t = Tensor.arange(6).reshape(2, 3);

  it('get accepts negative indices counted from the end', () => {
    expect(t.get(0, 0)).toBe(0);
    expect(t.get(-1, -1)).toBe(5);
    expect(t.get(-2, 1)).toBe(1);
  });

  it('get refuses a wrong index count or an out-of-range index, naming the shape', () => {
    expectShapeError(() => t.get(0), 'get', '[2,3]', 'needs 2 indices, got 1');
    expect(() => t.get(0, 3)).toThrow('get: index 3 out of range for dim 1 of shape [2,3] (valid: -3..2)');
    expectShapeError(() => t.get(-3, 0), 'index -3', 'dim 0');
  });

  it('item reads a one-element tensor and refuses larger ones', () => {
    expect(Tensor.full([1, 1], 4).item()).toBe(4);
    expect(t.sum().item()).toBe(15);
    expectShapeError(() => t.item(), 'item', '[2,3]', '6 elements');
  });

  it('toArray nests by shape and returns booleans for bool tensors', () => {
    expect(t.toArray()).toEqual([[0, 1, 2], [3, 4, 5]]);
    expect(t.gt(2).toArray()).toEqual([[false, false, false], [true, true, true]]);
    expect(Tensor.full([], 2).toArray()).toBe(2);
  });
});

describe('shape manipulation', () => {
  const t = Tensor.arange(24).reshape(2, 3, 4);

  it('reshape infers one -1 dim and accepts dims or a single array', () => {
    expect(t.reshape(4, -1).shape).toEqual([4, 6]);
    expect(t.reshape([-1, 2]).shape).toEqual([12, 2]);
    expect(t.reshape(-1).toArray()).toEqual([...Array(24).keys()]);
    expect(Tensor.full([1], 3).reshape([]).shape).toEqual([]);
  });

  it('reshape refuses impossible shapes, two -1s and an ambiguous -1', () => {
    expect(() => t.reshape(5, -1)).toThrow('reshape: cannot reshape shape [2,3,4] (24 elements) to [5,-1]');
    expectShapeError(() => t.reshape(7, 4), 'reshape', '[2,3,4]', '[7,4]');
    expectShapeError(() => t.reshape(-1, -1), 'only one dim may be -1');
    expectShapeError(() => Tensor.zeros([0, 3]).reshape(0, -1), 'ambiguous');
  });

  it('transpose swaps two dims, negative dims allowed, and copies into C order', () => {
    const tt = t.transpose(-1, -2);
    expect(tt.shape).toEqual([2, 4, 3]);
    expect(tt.get(1, 3, 2)).toBe(t.get(1, 2, 3));
    expect(tt.toArray()).toEqual(t.transpose(1, 2).toArray());
    expect(t.transpose(0, -1).shape).toEqual([4, 3, 2]);
    expect(() => Tensor.zeros([2, 3]).transpose(3, 0)).toThrow('transpose: dim 3 out of range for shape [2,3] (valid: -2..1)');
  });

  it('permute reorders dims so result dim i is input dim dims[i]', () => {
    const p = t.permute(2, 0, 1);
    expect(p.shape).toEqual([4, 2, 3]);
    for (const [i, j, k] of [[0, 0, 0], [3, 1, 2], [2, 0, 1]]) expect(p.get(i, j, k)).toBe(t.get(j, k, i));
    expect(t.permute(-1, 1, 0).shape).toEqual([4, 3, 2]);
    expectShapeError(() => t.permute(0, 0, 1), 'permute', '[0,0,1]', '[2,3,4]');
    expectShapeError(() => t.permute(0, 1), 'permute', '[2,3,4]');
  });

  it('unsqueeze inserts a size-1 dim; -1 appends at the end', () => {
    expect(t.unsqueeze(0).shape).toEqual([1, 2, 3, 4]);
    expect(t.unsqueeze(-1).shape).toEqual([2, 3, 4, 1]);
    expect(t.unsqueeze(3).shape).toEqual([2, 3, 4, 1]);
    expect(t.unsqueeze(-2).shape).toEqual([2, 3, 1, 4]);
    expectShapeError(() => t.unsqueeze(4), 'unsqueeze: dim 4 out of range for shape [2,3,4] (valid: -4..3)');
  });

  it('squeeze removes a size-1 dim and refuses one of another size', () => {
    const u = t.unsqueeze(1);
    expect(u.squeeze(1).shape).toEqual([2, 3, 4]);
    expect(u.squeeze(-3).shape).toEqual([2, 3, 4]);
    expect(Tensor.zeros([1, 2, 1]).squeeze().shape).toEqual([2]);
    expectShapeError(() => t.squeeze(0), 'squeeze', 'dim 0', '[2,3,4]', 'size 2');
  });

  it('astype converts (nonzero and NaN become true) and clone copies the data', () => {
    const f = new Tensor([0, 0.5, NaN, -2]);
    expect(f.astype('bool').toArray()).toEqual([false, true, true, true]);
    expect(f.astype('float32').dtype).toBe('float32');
    expect(f.gt(0).astype('float64').toArray()).toEqual([0, 1, 0, 0]);
    const c = f.clone();
    expect(c.data).not.toBe(f.data);
    expect(c.shape).toEqual(f.shape);
  });
});

describe('broadcasting elementwise ops', () => {
  it('[3,1] + [1,4] gives a [3,4] outer sum', () => {
    const col = Tensor.fromNested([[0], [10], [20]]);
    const row = Tensor.fromNested([[1, 2, 3, 4]]);
    const sum = col.add(row);
    expect(sum.shape).toEqual([3, 4]);
    expect(sum.toArray()).toEqual([[1, 2, 3, 4], [11, 12, 13, 14], [21, 22, 23, 24]]);
    expect(row.add(col).toArray()).toEqual(sum.toArray());
  });

  it('a scalar operand applies to every element on either side', () => {
    const t = Tensor.fromNested([[1, 2], [3, 4]]);
    expect(t.mul(2).toArray()).toEqual([[2, 4], [6, 8]]);
    expect(t.sub(1).toArray()).toEqual([[0, 1], [2, 3]]);
    expect(Tensor.full([], 10).div(t).toArray()).toEqual([[10, 5], [10 / 3, 2.5]].map((r) => r.map(Math.fround)));
  });

  it('drawn shapes that broadcast, size 0 and missing leading dims too: each op matches a loop over the broadcast index', () => {
    const ops = ['add', 'sub', 'mul', 'div'] as const;
    const apply = { add: (x: number, y: number) => x + y, sub: (x: number, y: number) => x - y, mul: (x: number, y: number) => x * y, div: (x: number, y: number) => x / y };
    fc.assert(fc.property(broadcastPair(4, 3), fc.constantFrom(...ops), fc.nat(), ({ a: aShape, b: bShape }, op, seed) => {
      const a = Tensor.randn(aShape, `a${seed}`, 'float64');
      const b = Tensor.randn(bShape, `b${seed}`, 'float64');
      const c = a[op](b);
      const shape = broadcastOf(aShape, bShape);
      expect(c.shape).toEqual(shape);
      for (const index of indices(shape)) expect(c.get(...index)).toBe(apply[op](broadcastGet(a, index), broadcastGet(b, index)));
    }), { seed: 45, numRuns: 200 });
  });

  it('size-0 dims broadcast against 1 and give empty results', () => {
    const empty = Tensor.zeros([0, 3]);
    expect(empty.add(Tensor.ones([1, 3])).shape).toEqual([0, 3]);
    expect(empty.mul(2).size).toBe(0);
    expect(empty.sum(0).toArray()).toEqual([0, 0, 0]);
  });

  it('incompatible shapes are refused with the op, both shapes and the failing dim', () => {
    expect(() => Tensor.zeros([2, 3]).add(Tensor.zeros([4]))).toThrow('add: shapes [2,3] and [4] cannot broadcast (dim -1: 3 vs 4)');
    expectShapeError(() => Tensor.zeros([2, 3]).lt(Tensor.zeros([3, 3])), 'lt: shapes [2,3] and [3,3]', 'dim -2: 2 vs 3');
    expectShapeError(() => Tensor.zeros([2]).add('1' as unknown as number), 'add', 'other');
  });

  it('unary maps: neg, exp, log, sqrt, abs', () => {
    const t = new Tensor([1, 4, -9]);
    expect(t.neg().toArray()).toEqual([-1, -4, 9]);
    expect(t.abs().sqrt().toArray()).toEqual([1, 2, 3]);
    expect(t.exp().log().get(1)).toBeCloseTo(4, 12);
    expect(Number.isNaN(t.sqrt().get(2))).toBe(true);
  });

  it('comparisons and logical ops give bool tensors; NaN compares unequal', () => {
    const a = new Tensor([1, 2, NaN]);
    expect(a.eq(2).toArray()).toEqual([false, true, false]);
    expect(a.ne(new Tensor([1, 0, NaN])).toArray()).toEqual([false, true, true]);
    expect(a.lt(2).toArray()).toEqual([true, false, false]);
    expect(a.le(2).toArray()).toEqual([true, true, false]);
    expect(a.gt(1).toArray()).toEqual([false, true, false]);
    expect(a.ge(1).toArray()).toEqual([true, true, false]);
    expect(a.isNaN().toArray()).toEqual([false, false, true]);
    const p = new Tensor([true, true, false, false]);
    const q = new Tensor([true, false, true, false]);
    expect(p.logicalAnd(q).toArray()).toEqual([true, false, false, false]);
    expect(p.logicalOr(q).toArray()).toEqual([true, true, true, false]);
    expect(p.logicalNot().toArray()).toEqual([false, false, true, true]);
    expect(p.logicalAnd(true).dtype).toBe('bool');
  });
});

describe('dtype promotion', () => {
  const f32 = Tensor.fromNested([0.1, 0.2]);
  const f64 = new Tensor([0.1, 0.2]);
  const bool = new Tensor([true, false]);

  it('float32 with float32 stays float32, rounded like float32 arithmetic', () => {
    const sum = f32.add(f32.mul(2));
    expect(sum.dtype).toBe('float32');
    expect(sum.get(0)).toBe(Math.fround(Math.fround(0.1) + Math.fround(Math.fround(0.1) * 2)));
  });

  it('any float64 operand gives float64', () => {
    expect(f32.add(f64).dtype).toBe('float64');
    expect(f64.mul(f32).dtype).toBe('float64');
    expect(f32.reshape(1, 2).matmul(f64.reshape(2, 1)).dtype).toBe('float64');
  });

  it('a JS number never changes the dtype; bool counts as float32 in arithmetic', () => {
    expect(f32.mul(0.5).dtype).toBe('float32');
    expect(f64.mul(0.5).dtype).toBe('float64');
    expect(bool.mul(2).dtype).toBe('float32');
    expect(bool.add(bool).dtype).toBe('float32');
    expect(bool.add(bool).toArray()).toEqual([2, 0]);
    expect(bool.add(f64).dtype).toBe('float64');
    expect(bool.exp().dtype).toBe('float32');
    expect(bool.neg().dtype).toBe('float32');
  });

  it('a scalar is rounded to the tensor dtype before comparing, as torch does', () => {
    expect(f32.eq(0.1).toArray()).toEqual([true, false]);
    expect(f64.eq(0.1).toArray()).toEqual([true, false]);
  });

  it('reductions: sum/mean of bool give float32, max/min of bool stay bool, floats keep dtype', () => {
    expect(bool.sum().dtype).toBe('float32');
    expect(bool.mean().item()).toBe(0.5);
    expect(bool.max().dtype).toBe('bool');
    expect(bool.min().toArray()).toBe(false);
    expect(f64.sum().dtype).toBe('float64');
    expect(f32.max().dtype).toBe('float32');
  });
});

describe('reductions', () => {
  const t = Tensor.arange(24).reshape(2, 3, 4).astype('float32');

  it('reduce along a dim, negative dims counting from the end', () => {
    expect(t.sum(-1).toArray()).toEqual(t.sum(2).toArray());
    expect(t.sum(-1).toArray()).toEqual([[6, 22, 38], [54, 70, 86]]);
    expect(t.max(0).shape).toEqual([3, 4]);
    expect(t.max(-3).toArray()).toEqual(t.max(0).toArray());
    expect(t.min(1).toArray()).toEqual([[0, 1, 2, 3], [12, 13, 14, 15]]);
    expect(t.mean(-1).get(1, 2)).toBe(21.5);
    expectShapeError(() => t.sum(3), 'sum: dim 3 out of range for shape [2,3,4] (valid: -3..2)');
  });

  it('keepdim leaves a size-1 dim in place', () => {
    expect(t.max(-1, true).shape).toEqual([2, 3, 1]);
    expect(t.sum(1, true).shape).toEqual([2, 1, 4]);
    expect(t.mean(0, true).shape).toEqual([1, 3, 4]);
    expect(t.sub(t.max(-1, true)).max(-1).toArray()).toEqual([[0, 0, 0], [0, 0, 0]]);
  });

  it('without a dim everything reduces to shape [] and keepdim is ignored', () => {
    expect(t.sum().shape).toEqual([]);
    expect(t.sum().item()).toBe(276);
    expect(t.max(undefined, true).shape).toEqual([]);
    expect(t.min().item()).toBe(0);
    expect(t.mean().item()).toBe(11.5);
  });

  it('max of an all -inf row is -inf and NaN propagates through max and min', () => {
    const x = Tensor.fromNested([[-Infinity, -Infinity], [1, NaN], [NaN, 1]]);
    expect(x.max(-1).toArray()).toEqual([-Infinity, NaN, NaN]);
    expect(x.min(-1).toArray()).toEqual([-Infinity, NaN, NaN]);
    expect(Number.isNaN(x.sum().item())).toBe(true);
  });

  it('max over an empty dim is refused; sum over it is 0 and mean NaN', () => {
    const e = Tensor.zeros([2, 0]);
    expectShapeError(() => e.max(1), 'max', 'dim 1', '[2,0]');
    expectShapeError(() => e.min(), 'min', '[2,0]');
    expect(e.sum(1).toArray()).toEqual([0, 0]);
    expect(Number.isNaN(e.mean().item())).toBe(true);
  });

  it('sums float32 data in float64 before rounding once', () => {
    const many = Tensor.full([100000], 0.1);
    expect(many.sum().item()).toBe(Math.fround(Math.fround(0.1) * 100000));
  });
});

describe('matmul', () => {
  it('drawn shapes, batch dims that broadcast (0 to 3, missing ones too): matches a naive loop, in float32 rounded once', () => {
    const shapes = fc.tuple(broadcastPair(3, 3), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 6 }));
    fc.assert(fc.property(shapes, fc.nat(), ([{ a: aBatch, b: bBatch }, n, k, m], seed) => {
      const a = Tensor.randn([...aBatch, n, k], `a${seed}`);
      const b = Tensor.randn([...bBatch, k, m], `b${seed}`);
      const c = a.matmul(b);
      const ref = naiveMatmul(a, b);
      expect(c.shape).toEqual([...broadcastOf(aBatch, bBatch), n, m]);
      expect(ref.shape).toEqual(c.shape);
      expect(c.dtype).toBe('float32');
      // Same float64 accumulation order as the reference, then one rounding to float32.
      expect([...c.data]).toEqual(ref.values.map(Math.fround));
    }), { seed: 45, numRuns: 150 });
  });

  it('[4,12,64] @ [64,64] broadcasts the matrix over the batch', () => {
    const c = Tensor.randn([4, 12, 64], 'x').matmul(Tensor.randn([64, 64], 'w'));
    expect(c.shape).toEqual([4, 12, 64]);
  });

  it('attention-sized Q @ Kᵀ ([4,8,256,64] @ [4,8,64,256]) agrees with dot products at sampled entries', () => {
    const q = Tensor.randn([4, 8, 256, 64], 'q');
    const k = Tensor.randn([4, 8, 256, 64], 'k');
    const s = q.matmul(k.transpose(-2, -1));
    expect(s.shape).toEqual([4, 8, 256, 256]);
    for (const [b, h, i, j] of [[0, 0, 0, 0], [3, 7, 255, 255], [1, 2, 253, 3], [2, 5, 17, 254]]) {
      let dot = 0;
      for (let p = 0; p < 64; p++) dot += q.get(b, h, i, p) * k.get(b, h, j, p);
      expect(s.get(b, h, i, j)).toBe(Math.fround(dot));
    }
  });

  it('a zero-length inner dim gives zeros', () => {
    expect(Tensor.zeros([2, 0]).matmul(Tensor.zeros([0, 3])).toArray()).toEqual([[0, 0, 0], [0, 0, 0]]);
  });

  it('refuses operands with fewer than 2 dims, naming the op and shapes', () => {
    expectShapeError(() => Tensor.zeros([4]).matmul(Tensor.zeros([4, 2])), 'matmul', '[4]', '[4,2]');
    expectShapeError(() => Tensor.zeros([3, 4]).matmul(Tensor.zeros([4])), 'matmul', '[3,4]', '[4]');
  });

  it('refuses mismatched inner dims with the exact message', () => {
    expect(() => Tensor.zeros([2, 3, 4]).matmul(Tensor.zeros([2, 5, 6]))).toThrow(
      'matmul: inner dims 4 and 5 of shapes [2,3,4] and [2,5,6] must match',
    );
  });

  it('refuses batch dims that cannot broadcast', () => {
    expectShapeError(() => Tensor.zeros([2, 3, 4]).matmul(Tensor.zeros([3, 4, 5])), 'matmul', '[2,3,4]', '[3,4,5]', 'batch');
  });
});

describe('maskedFill and where', () => {
  it('a 2-D causal mask broadcasts over batch and head dims', () => {
    const scores = Tensor.randn([2, 3, 4, 4], 's');
    const causal = Tensor.arange(4).unsqueeze(1).ge(Tensor.arange(4).unsqueeze(0));
    const filled = scores.maskedFill(causal.logicalNot(), -Infinity);
    expect(filled.shape).toEqual([2, 3, 4, 4]);
    expect(filled.dtype).toBe('float32');
    for (let b = 0; b < 2; b++) for (let h = 0; h < 3; h++) for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) {
      expect(filled.get(b, h, i, j)).toBe(j > i ? -Infinity : scores.get(b, h, i, j));
    }
  });

  it('treats any nonzero mask value as true and keeps the tensor dtype', () => {
    const t = new Tensor([1, 2, 3]);
    expect(t.maskedFill(new Tensor([0, 0.5, NaN]), 0).toArray()).toEqual([1, 0, 0]);
    expect(t.maskedFill(new Tensor([true, false, false]), -1).dtype).toBe('float64');
    expect(new Tensor([true, true]).maskedFill(new Tensor([true, false]), 0).toArray()).toEqual([false, true]);
  });

  it('refuses a mask that would enlarge the shape, naming both shapes', () => {
    const t = Tensor.zeros([3, 4]);
    expect(() => t.maskedFill(Tensor.zeros([2, 3, 4], 'bool'), 0)).toThrow(
      'maskedFill: mask shape [2,3,4] cannot broadcast to tensor shape [3,4]',
    );
    expectShapeError(() => t.maskedFill(Tensor.zeros([4, 4], 'bool'), 0), 'maskedFill', '[4,4]', '[3,4]');
  });

  it('where broadcasts cond, a and b together and accepts numbers', () => {
    const cond = Tensor.fromNested([[true], [false]]);
    const a = Tensor.fromNested([1, 2, 3]);
    const r = Tensor.where(cond, a, -1);
    expect(r.shape).toEqual([2, 3]);
    expect(r.toArray()).toEqual([[1, 2, 3], [-1, -1, -1]]);
    expect(r.dtype).toBe('float32');
    expect(Tensor.where(cond, 1, 0).toArray()).toEqual([[1], [0]]);
    expect(Tensor.where(cond, new Tensor([5]), 0).dtype).toBe('float64');
    expect(Tensor.where(cond, cond, cond.logicalNot()).dtype).toBe('bool');
  });

  it('where refuses shapes that cannot broadcast, naming all three', () => {
    expectShapeError(() => Tensor.where(Tensor.zeros([2], 'bool'), Tensor.zeros([3]), 0), 'where', '[2] (cond)', '[3] (a)', '[] (b)');
  });
});

describe('toString', () => {
  it('shows shape, dtype and values to 4 decimals, rows on their own lines', () => {
    const t = Tensor.fromNested([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]);
    expect(t.toString()).toBe('Tensor(shape=[2,3], dtype=float32)\n[[0.1000, 0.2000, 0.3000],\n [0.4000, 0.5000, 0.6000]]');
  });

  it('elides long dims with ... keeping the first and last 3', () => {
    const text = Tensor.arange(100).reshape(10, 10).toString();
    expect(text).toContain('[[ 0.0000,  1.0000,  2.0000, ...,  7.0000,  8.0000,  9.0000],');
    expect(text).toContain(' ...,\n');
    expect(text).toContain('99.0000]]');
    expect(text).not.toContain('45.0000');
    expect(text.split('\n')).toHaveLength(1 + 7);
  });

  it('prints bools as true/false, special floats as nan/inf, extremes in exponent form', () => {
    expect(new Tensor([true, false]).toString()).toBe('Tensor(shape=[2], dtype=bool)\n[ true, false]');
    expect(new Tensor([NaN, -Infinity, 1]).toString()).toContain('[   nan,   -inf, 1.0000]');
    expect(new Tensor([1e-6, 1e9]).toString()).toContain('[1.0000e-06, 1.0000e+09]');
    expect(Tensor.full([], 2).toString()).toBe('Tensor(shape=[], dtype=float32)\n2.0000');
  });

  it('separates blocks of a 3-D tensor with a blank line and serves util.inspect', () => {
    const t = Tensor.zeros([2, 1, 2]);
    expect(t.toString()).toBe('Tensor(shape=[2,1,2], dtype=float32)\n[[[0.0000, 0.0000]],\n\n [[0.0000, 0.0000]]]');
    expect(inspect(t)).toBe(t.toString());
    expect(`${t}`).toBe(t.toString());
  });
});

describe('scope of the library', () => {
  it('offers no softmax, attention or triangular mask for students to lean on', () => {
    const names = [...Object.getOwnPropertyNames(Tensor.prototype), ...Object.getOwnPropertyNames(Tensor)];
    expect(names).toContain('matmul');
    for (const name of names) expect(name).not.toMatch(/softmax|attention|tril|triu/i);
    const proto = Tensor.prototype as unknown as Record<string, unknown>;
    for (const name of ['softmax', 'logSoftmax', 'tril', 'triu', 'attention', 'scaledDotProductAttention']) {
      expect(proto[name]).toBeUndefined();
    }
  });

  it('ops return new tensors and never modify their inputs', () => {
    const t = Tensor.fromNested([[1, 2], [3, 4]]);
    const before = [...t.data];
    for (const out of [t.add(1), t.reshape(4), t.transpose(0, 1), t.unsqueeze(0), t.maskedFill(t.gt(2), 0), t.sum(0)]) {
      expect(out.data).not.toBe(t.data);
    }
    expect([...t.data]).toEqual(before);
  });
});
