import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkClose, checkEqual, checkMaskEqual, checkMaskedAreZero, checkRowsSumToOne, checkShape } from './compare';

const t = (data: number[], shape: number[]) => ({ data: Float64Array.from(data), shape });
const tol = { atol: 1e-6, rtol: 1e-4 };

describe('checkShape', () => {
  it('names both shapes on a mismatch', () => {
    expect(checkShape(t([1, 2], [2]), t([1, 2], [1, 2])).message).toBe('expected shape [1,2], got [2]');
  });
});

/**
 * Drawn cases of the comparison: expected values of every magnitude, actual ones just inside or
 * just past the tolerance of their element (or far off, or NaN), each element's error bound (0
 * where none), and a tolerance.
 */
const drawnComparisons = fc.record({
  tolerance: fc.record({ atol: fc.double({ min: 0, max: 1e-3, noNaN: true }), rtol: fc.double({ min: 0, max: 1e-2, noNaN: true }) }),
  elements: fc.array(fc.record({
    expected: fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constantFrom(0, -0, 1e-300, 1e300)),
    // How far off, as a multiple of the element's own tolerance or of its bound; NaN for a NaN answer.
    off: fc.oneof(fc.constantFrom(0, 0.5, 0.999, 1, 1.001, 2, 1e6, NaN), fc.double({ min: -4, max: 4, noNaN: true })),
    of: fc.constantFrom('tolerance', 'bound'),
    bound: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1e-2, noNaN: true })),
  }), { minLength: 1, maxLength: 12 }),
});

describe('checkClose', () => {
  it('passes exactly when every element is within atol + rtol·|expected| or its own error bound, whichever is wider; NaN never is', () => {
    fc.assert(fc.property(drawnComparisons, ({ tolerance, elements }) => {
      const expected = elements.map((e) => e.expected);
      const actual = elements.map((e) => e.expected + e.off * (e.of === 'bound' ? e.bound : tolerance.atol + tolerance.rtol * Math.abs(e.expected)));
      const within = elements.map((e, i) => {
        const error = Math.abs(actual[i] - e.expected);
        return error <= Math.max(tolerance.atol + tolerance.rtol * Math.abs(e.expected), e.bound);
      });
      const bounds = elements.map((e) => e.bound);
      const outcome = checkClose(t(actual, [actual.length]), t(expected, [expected.length]), tolerance, { name: 'bound', bounds: () => bounds });
      expect(outcome.passed).toBe(within.every(Boolean));
      if (!outcome.passed) expect(outcome.message).toMatch(new RegExp(`^${within.filter((w) => !w).length} of `));
      // Without a bound, the tolerance alone decides.
      const alone = elements.map((e, i) => Math.abs(actual[i] - e.expected) <= tolerance.atol + tolerance.rtol * Math.abs(e.expected));
      expect(checkClose(t(actual, [actual.length]), t(expected, [expected.length]), tolerance).passed).toBe(alone.every(Boolean));
    }), { seed: 45, numRuns: 500 });
  });
  it('reports count, first bad index, values and the max abs error', () => {
    const outcome = checkClose(t([0, 1, 2, 3.5], [2, 2]), t([0, 1, 2.1, 3], [2, 2]), tol);
    expect(outcome.passed).toBe(false);
    expect(outcome.message).toBe(
      '2 of 4 values out of tolerance (atol 1e-6, rtol 1e-4); first at [1, 0]: expected 2.1, got 2; max abs error 0.5 at [1, 1]',
    );
  });
  it('treats NaN as out of tolerance', () => {
    expect(checkClose(t([NaN], [1]), t([0], [1]), tol).message).toMatch(/got NaN/);
  });
});

describe('checkClose widened by an error bound', () => {
  const widening = (bounds: number[]) => ({ name: 'float32 error bound', bounds: () => bounds });
  it('names the bound at the first element beyond it, when it was the wider', () => {
    const outcome = checkClose(t([0, 3e-5, 2.1], [3]), t([0, 0, 2], [3]), tol, widening([0, 2.03e-5, 0]));
    expect(outcome.message).toBe(
      '2 of 3 values out of tolerance (atol 1e-6, rtol 1e-4, or the float32 error bound of this case where wider); ' +
        'first at [1]: expected 0, got 3.000e-5, beyond the float32 error bound of this case (≤ 2.1e-5 here); max abs error 0.1 at [2]',
    );
  });
  it('says the tolerance alone where no bound was wider', () => {
    const outcome = checkClose(t([0.5], [1]), t([0], [1]), tol, widening([1e-9]));
    expect(outcome.message).toBe('1 of 1 value out of tolerance (atol 1e-6, rtol 1e-4); first at [0]: expected 0, got 0.5; max abs error 0.5 at [0]');
  });
  it('asks for no bound when every element is within the tolerance', () => {
    const bounds = () => {
      throw new Error('asked');
    };
    expect(checkClose(t([1, 2], [2]), t([1, 2], [2]), tol, { name: 'bound', bounds }).passed).toBe(true);
  });
});

describe('probability checks', () => {
  const mask = { data: Uint8Array.from([1, 0, 0, 0]), shape: [2, 2] };
  it('rows with allowed keys sum to 1 and fully masked rows to 0', () => {
    expect(checkRowsSumToOne(t([1, 0, 0, 0], [2, 2]), mask).passed).toBe(true);
    expect(checkRowsSumToOne(t([0.9, 0, 0, 0], [2, 2]), mask).message).toMatch(/row \[0\] sums to 0\.9, not 1/);
    expect(checkRowsSumToOne(t([1, 0, 0.5, 0.5], [2, 2]), mask).message).toMatch(/row \[1\] has every key masked/);
  });
  it('a 2-D mask broadcasts over batch dims', () => {
    const probs = t([1, 0, 0, 0, 1, 1e-30, 0, 0], [2, 2, 2]);
    const outcome = checkMaskedAreZero(probs, mask);
    expect(outcome.message).toMatch(/^1 masked position got probability instead of exactly 0; first: \[1, 0, 1\] got 1\.000e-30/);
  });
});

describe('checkMaskEqual', () => {
  it('reads a wrong entry as query and key', () => {
    const expected = t([1, 0, 1, 1], [2, 2]);
    expect(checkMaskEqual(t([1, 1, 1, 1], [2, 2]), expected).message).toBe(
      'entry [0, 1] is 1 but should be 0: query 0 must not see key 1, a future position',
    );
    expect(checkMaskEqual(t([0, 0, 1, 1], [2, 2]), expected).message).toMatch(/query 0 must be able to see key 0/);
  });
});

describe('checkEqual', () => {
  it('integers compared exactly: a neighbour\'s index is wrong, whether or not either is 0', () => {
    const expected = t([2, 0, 5, 1], [2, 2]);
    expect(checkEqual(t([2, 0, 5, 1], [2, 2]), expected).passed).toBe(true);
    for (const [at, wrong] of [[0, 3], [1, 1], [2, 4], [3, 0]] as const) {
      const data = [2, 0, 5, 1];
      data[at] = wrong;
      const outcome = checkEqual(t(data, [2, 2]), expected);
      expect(outcome.passed, `${at}`).toBe(false);
      expect(outcome.message).toMatch(new RegExp(`^1 of 4 values differ \\(compared exactly\\); first at \\[${at >> 1}, ${at & 1}\\]: expected ${expected.data[at]}, got ${wrong}$`));
    }
  });
});
