/**
 * The pieces of the float32 error model (docs/float32-error.md derives it): the unit roundoff,
 * Higham's γₙ, and the index arithmetic the bounds share. Everything here runs in float64 in the
 * process that awards points; it reads a case's inputs and never student code.
 */

/** What the model reads: a tensor's row-major values and shape (lib's Values, restated so the model reads any tensor-like value). */
export interface Arr {
  readonly data: ArrayLike<number>;
  readonly shape: readonly number[];
}

/** float32's unit roundoff: one rounding moves a value by at most u·|value|. */
export const U = 2 ** -24;

/** γₙ = n·u / (1 − n·u): n roundings in a row move a value by at most γₙ·|value| (Higham, Accuracy and Stability, §3.1). */
export const gamma = (n: number) => (n * U) / (1 - n * U);

/**
 * The model is first order in the per-score errors ε (each ≤ 2e-3 while scores stay below 2048,
 * the domain's limit): e^ε − 1 ≤ 1.001·ε there, and renormalising adds no more than ε² relative.
 * 1.05 covers both with room, and the float64 rounding of the bound's own sums.
 */
export const SECOND_ORDER = 1.05;

export const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

/** The shape leading dims broadcast to (right-aligned, size 1 stretches). */
export function broadcastShape(shapes: readonly (readonly number[])[]): number[] {
  const n = Math.max(0, ...shapes.map((s) => s.length));
  return Array.from({ length: n }, (_, d) => Math.max(1, ...shapes.map((s) => s[s.length - n + d] ?? 1)));
}

/** Row-major index of `flat` in `shape`. */
export function unravel(flat: number, shape: readonly number[]): number[] {
  const index = new Array<number>(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    index[d] = flat % shape[d];
    flat = Math.floor(flat / shape[d]);
  }
  return index;
}

/** Offset in a tensor of `shape` of the element that broadcasts onto `index` (right-aligned; size-1 dims repeat). */
export function offsetOf(shape: readonly number[], index: readonly number[]): number {
  let offset = 0;
  const lead = index.length - shape.length;
  for (let d = 0; d < shape.length; d++) offset = offset * shape[d] + (shape[d] === 1 ? 0 : index[lead + d]);
  return offset;
}
