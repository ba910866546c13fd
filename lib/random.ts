import type seedrandomType from 'seedrandom';

/**
 * Loaded on first use, not with the tensor module: seedrandom loads node:crypto as it loads, about
 * 10 ms of every grading child's start, and a child needs it only if student code draws numbers.
 */
let seedrandom: typeof seedrandomType | undefined;

/**
 * Standard normal samples from a named seed (Box–Muller over seedrandom's ARC4 stream), so the
 * same seed gives the same numbers on every machine and Node version.
 */
export function gaussian(count: number, seed: string | number): Float64Array {
  seedrandom ??= require('seedrandom') as typeof seedrandomType;
  const next = seedrandom(String(seed));
  const out = new Float64Array(count);
  for (let i = 0; i < count; i += 2) {
    // 1 − u keeps the logarithm's argument in (0, 1].
    const radius = Math.sqrt(-2 * Math.log(1 - next()));
    const angle = 2 * Math.PI * next();
    out[i] = radius * Math.cos(angle);
    if (i + 1 < count) out[i + 1] = radius * Math.sin(angle);
  }
  return out;
}
