/**
 * The tensor module's speed in GFLOP/s on attention-sized work: batched matmul (Q @ Kᵀ, Kᵀ made
 * contiguous) and scaled dot-product attention, against the plain loops of kernels.ts. FLOPs are
 * counted the usual way, 2·n·m·k per product and only the two products for attention
 * (4·batch·n²·d); the softmax and the scaling are free in that count, so every implementation is
 * charged for the same work.
 */
import { Tensor } from '../tensor';
import { naiveBatchedMatmul, naiveSdpa } from './kernels';
import { elapsedMs, median } from './measure';

/** [batch, heads, sequence, dHead], the size the goal is stated for. */
export const BENCH_SHAPE: readonly [number, number, number, number] = [4, 8, 256, 64];

export type Sdpa = (q: Tensor, k: Tensor, v: Tensor) => Tensor;

export interface Rates {
  matmulGflops: number;
  sdpaGflops: number;
}

export interface TensorResult {
  shape: readonly number[];
  reps: number;
  matmulFlops: number;
  sdpaFlops: number;
  tensor: Rates;
  loops: Rates;
}

export function flops([b, h, n, d]: readonly number[]): { matmul: number; sdpa: number } {
  return { matmul: 2 * b * h * n * n * d, sdpa: 4 * b * h * n * n * d };
}

/** Median seconds over `reps` runs, after one run that lets the JIT settle. */
function seconds(reps: number, run: () => unknown): number {
  run();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const start = process.hrtime.bigint();
    run();
    times.push(elapsedMs(start) / 1000);
  }
  return median(times);
}

export function measureTensor(sdpa: Sdpa, reps: number, shape: readonly number[] = BENCH_SHAPE): TensorResult {
  const [b, h, n, d] = shape;
  const [q, k, v] = [1, 2, 3].map((seed) => Tensor.randn(shape, seed));
  const kT = k.transpose(-2, -1);
  const count = flops(shape);
  const rate = (work: number, run: () => unknown) => work / seconds(reps, run) / 1e9;
  const f32 = (t: Tensor) => t.data as Float32Array;
  return {
    shape,
    reps,
    matmulFlops: count.matmul,
    sdpaFlops: count.sdpa,
    tensor: { matmulGflops: rate(count.matmul, () => q.matmul(kT)), sdpaGflops: rate(count.sdpa, () => sdpa(q, k, v)) },
    loops: {
      matmulGflops: rate(count.matmul, () => naiveBatchedMatmul(f32(q), f32(kT), b * h, n, d, n)),
      sdpaGflops: rate(count.sdpa, () => naiveSdpa(f32(q), f32(k), f32(v), b * h, n, d)),
    },
  };
}
