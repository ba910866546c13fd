import { describe, expect, it } from 'vitest';
import { Tensor } from '../tensor';
import { naiveBatchedMatmul, naiveSdpa } from './kernels';
import { flops, measureTensor } from './tensor';

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((worst, x, i) => Math.max(worst, Math.abs(x - b[i])), 0);

/** Attention from tensor methods, written here so the bench's own tests need no reference. */
function attention(q: Tensor, k: Tensor, v: Tensor): Tensor {
  const scores = q.matmul(k.transpose(-2, -1)).div(Math.sqrt(q.shape[q.ndim - 1]));
  const e = scores.sub(scores.max(-1, true)).exp();
  return e.div(e.sum(-1, true)).matmul(v);
}

describe('bench baselines compute what they are timed against', () => {
  const [q, k, v] = [1, 2, 3].map((seed) => Tensor.randn([2, 3, 5, 4], seed));
  const f32 = (t: Tensor) => t.data as Float32Array;

  it('plain-loop batched matmul equals Tensor.matmul', () => {
    const kT = k.transpose(-2, -1);
    expect(maxDiff(naiveBatchedMatmul(f32(q), f32(kT), 6, 5, 4, 5), q.matmul(kT).data)).toBeLessThan(1e-5);
  });

  it('plain-loop attention equals attention from tensor methods', () => {
    expect(maxDiff(naiveSdpa(f32(q), f32(k), f32(v), 6, 5, 4), attention(q, k, v).data)).toBeLessThan(1e-5);
  });

  it('a tiny measurement gives finite positive rates and the usual FLOP counts', () => {
    const result = measureTensor(attention, 1, [1, 2, 8, 4]);
    expect(result.matmulFlops).toBe(2 * 2 * 8 * 8 * 4);
    expect(result.sdpaFlops).toBe(flops([1, 2, 8, 4]).sdpa);
    for (const rate of [result.tensor, result.loops].flatMap((r) => [r.matmulGflops, r.sdpaGflops])) {
      expect(Number.isFinite(rate) && rate > 0).toBe(true);
    }
  });
});
