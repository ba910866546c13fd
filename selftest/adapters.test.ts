/** The adapters read what a submission returns, or refuse it with a message a student can act on. */
import { describe, expect, it } from 'vitest';
import { HangError } from '../lib/grading/withinLimit';
import { Tensor } from '../lib/tensor';
import { caller } from './calls';

const x = Tensor.randn([2, 3], 1);
const adapt = (softmax: (x: Tensor) => unknown) => caller({ softmax })('softmax', { params: { dim: -1 }, inputs: { x } });

describe('adapters', () => {
  it('accept a Tensor, and { shape, data } with typed or plain arrays', () => {
    expect(adapt(() => x).shape).toEqual([2, 3]);
    expect(adapt(() => ({ shape: [2, 3], data: Array.from(x.data) })).data).toBeInstanceOf(Float64Array);
    expect(adapt(() => ({ shape: [2, 3], data: Float32Array.from(x.data) })).dtype).toBe('float32');
  });

  it.each([
    ['undefined', () => undefined, /returned undefined \(did you forget to return it\?\)/],
    ['a number', () => 3, /returned a number; return a Tensor or \{ shape, data \}/],
    ['the wrong length', () => ({ shape: [2, 2], data: [1, 2, 3] }), /returned 3 values for shape \[2,2\], which needs 4/],
    ['a bad shape', () => ({ shape: [2, -1], data: [] }), /not a list of non-negative integers/],
    ['nested arrays', () => ({ shape: [2, 3], data: [[1, 2, 3], [4, 5, 6]] }), /nested arrays/],
    ['boolean data', () => ({ shape: [2, 3], data: new Uint8Array(6) }), /boolean data/],
    ['an Int32Array', () => ({ shape: [2, 3], data: new Int32Array(6) }), /data of type a Int32Array/],
    ['NaN', () => ({ shape: [2, 3], data: [0, 1, NaN, 0, 0, 0] }), /^softmax output has NaN at \[0, 2\] \(1 non-finite value in all\)\.$/],
  ])('refuse %s', (_, fn, message) => {
    expect(() => adapt(fn)).toThrow(message);
  });

  it('explain NaN in a fully masked attention row', () => {
    const q = Tensor.randn([1, 2, 4], 2);
    const mask = new Tensor(Uint8Array.from([1, 1, 0, 0]), [2, 2]);
    const nan = () => ({ shape: [1, 2, 4], data: [0, 0, 0, 0, NaN, NaN, NaN, NaN] });
    const run = () => caller({ scaledDotProductAttention: nan })('scaled_dot_product_attention', { params: {}, inputs: { q, k: q, v: q, mask } });
    expect(run).toThrow(/at \[0, 1, 0\].*Every key of this query is masked/);
  });

  it('read causal masks from booleans, 0/1 numbers or floats, and refuse other values', () => {
    const run = (data: unknown) => caller({ causalMask: () => ({ shape: [2, 2], data }) })('causal_mask', { params: { seqLen: 2 }, inputs: {} });
    expect(Array.from(run([true, false, true, true]).data)).toEqual([1, 0, 1, 1]);
    expect(run(Float32Array.from([1, 0, 1, 1])).dtype).toBe('bool');
    expect(() => run([1, 0.5, 1, 1])).toThrow(/causalMask returned 0\.5 at \[0, 1\]; a mask holds only 0\/1/);
  });

  it('name a missing export and the file', () => {
    expect(() => caller({}, 'student/index.ts')('causal_mask', { params: { seqLen: 2 }, inputs: {} })).toThrow(
      'student/index.ts does not export a function named causalMask',
    );
  });

  it('read the return under the call\'s limit: a getter that never returns is a hang, not a stuck npm test', () => {
    const endless = { shape: [2, 3], get data(): never { for (;;); } };
    const run = () => caller({ softmax: () => endless }, 'student/index.ts', 200)('softmax', { params: { dim: -1 }, inputs: { x } });
    expect(run).toThrow(HangError);
  });
});
