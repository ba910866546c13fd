import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { outputFacts } from './outputFacts';

type Values = { data: Float64Array; shape: number[] };

const TOL = { atol: 1e-6, rtol: 1e-4 };

/** A random output of `shape` (values in [-1, 1)), and a drawer of whole numbers below n. */
function draw(seed: string, shape: number[]): { expected: Values; int: (n: number) => number } {
  const random = seedrandom(seed);
  const size = shape.reduce((a, b) => a * b, 1);
  return { expected: { data: Float64Array.from({ length: size }, () => random() * 2 - 1), shape }, int: (n) => Math.floor(random() * n) };
}

/** The expected output with rows (slices along the last dim) moved by `to`: row r of the result is row to(r). */
function moveRows({ data, shape }: Values, to: (r: number) => number): Values {
  const cols = shape[shape.length - 1];
  const out = new Float64Array(data.length);
  for (let r = 0; r < data.length / cols; r++) for (let c = 0; c < cols; c++) out[r * cols + c] = data[to(r) * cols + c];
  return { data: out, shape };
}

/** Shapes with one to three leading dims, rows and columns of at least two. */
const SHAPES = [[5, 3], [2, 4, 6], [3, 2, 5, 4], [2, 2, 2, 3], [1, 7, 2]];

describe('outputFacts: what a wrong output shows against the expected one', () => {
  it.each(SHAPES.map((s) => [s.join('x'), s] as const))('%s: rows exchanged in pairs are a permutation, and say which row holds which', (key, shape) => {
    const { expected, int } = draw(`rows ${key}`, shape);
    const rows = expected.data.length / shape[shape.length - 1];
    const [a, b] = [int(rows), (int(rows - 1) + 1 + int(rows)) % rows];
    if (a === b) return;
    const out = moveRows(expected, (r) => (r === a ? b : r === b ? a : r));
    const fact = outputFacts(out, expected, TOL);
    expect(['rows_permuted', 'entries_permuted']).toContain(fact?.mistake);
    expect(fact!.message).toMatch(/holds what \[[\d, :]+\] should/);
  });

  it.each(SHAPES.filter((s) => s.length >= 3).map((s) => [s.join('x'), s] as const))('%s: whole entries moved are named as entries', (key, shape) => {
    const { expected } = draw(`entries ${key}`, shape);
    const per = shape[shape.length - 2];
    const entries = expected.data.length / (per * shape[shape.length - 1]);
    if (entries < 2) return;
    const out = moveRows(expected, (r) => ((Math.floor(r / per) + 1) % entries) * per + (r % per));
    expect(outputFacts(out, expected, TOL)?.mistake).toBe('entries_permuted');
  });

  it.each(SHAPES.map((s) => [s.join('x'), s] as const))('%s: one factor for all, and a factor per row', (key, shape) => {
    const { expected, int } = draw(`factors ${key}`, shape);
    const cols = shape[shape.length - 1];
    const times = (f: (r: number) => number) => ({ data: expected.data.map((v, i) => v * f(Math.floor(i / cols))), shape });
    const all = outputFacts(times(() => 0.125), expected, TOL);
    expect(all?.mistake).toBe('output_scaled');
    expect(all!.message).toContain('0.125 (1/8)');
    const rows = expected.data.length / cols;
    const scaled = int(rows);
    expect(outputFacts(times((r) => (r === scaled ? 0.37 : 1)), expected, TOL)?.mistake).toBe('rows_scaled');
    expect(outputFacts(times((r) => (r === scaled ? 0 : 1)), expected, TOL)?.mistake).toBe('rows_zero');
  });

  it('columns moved, and the last two dims transposed', () => {
    const { expected } = draw('columns', [4, 3, 5]);
    const swapped = { data: expected.data.map((_, i) => expected.data[i - (i % 5) + [1, 0, 2, 3, 4][i % 5]]), shape: expected.shape };
    expect(outputFacts(swapped, expected, TOL)?.mistake).toBe('columns_permuted');
    const square = draw('square', [2, 4, 4]).expected;
    const transposed = { data: square.data.map((_, i) => square.data[i - (i % 16) + (i % 4) * 4 + Math.floor((i % 16) / 4)]), shape: square.shape };
    expect(outputFacts(transposed, square, TOL)?.mistake).toBe('output_transposed');
  });

  it('says nothing of an output that is wrong in no such way, or right', () => {
    for (const shape of SHAPES) {
      const { expected } = draw(`noise ${shape}`, shape);
      const noisy = { data: expected.data.map((v, i) => v + (i % 3 === 0 ? 0.01 : 0)), shape };
      expect(outputFacts(noisy, expected, TOL)).toBeUndefined();
      expect(outputFacts(expected, expected, TOL)).toBeUndefined();
    }
  });

  it('rows that all repeat one expected row are no permutation', () => {
    const { expected } = draw('repeat', [2, 4, 3]);
    expect(outputFacts(moveRows(expected, (r) => r - (r % 4)), expected, TOL)).toBeUndefined();
  });

  it('a row of zeros where the expected output has zero rows is no permutation unless it has as many', () => {
    // Rows 1 and 3 of the expected output are zeros (fully masked queries): an output whose row 0
    // is zeros too holds more zero rows than the expected one, which no reordering gives.
    const { expected } = draw('zeros', [4, 3]);
    const data = Float64Array.from(expected.data);
    data.fill(0, 3, 6);
    data.fill(0, 9, 12);
    const withZeros = { data, shape: expected.shape };
    const extraZero = { data: Float64Array.from(data).fill(0, 0, 3), shape: expected.shape };
    expect(outputFacts(extraZero, withZeros, TOL)?.mistake).toBe('rows_zero');
    // Rows 0 and 1 exchanged: the zero row moved, the count kept.
    expect(outputFacts(moveRows(withZeros, (r) => [1, 0, 2, 3][r]), withZeros, TOL)?.mistake).toBe('rows_permuted');
  });

  it('compared exactly when there is no tolerance (a mask)', () => {
    const expected = { data: Float64Array.from([1, 0, 0, 1, 1, 0, 1, 1, 1]), shape: [3, 3] };
    const out = moveRows(expected, (r) => [0, 2, 1][r]);
    expect(outputFacts(out, expected, undefined)?.mistake).toBe('rows_permuted');
  });
});
