import { describe, expect, it } from 'vitest';
import { GRADED_CASES } from '../../tests/cases';
import { loadFixture } from '../grading/fixtures';
import { Tensor } from '../tensor';
import { diagnose, summarise, withinTolerance } from './diagnose';
import { matmulWithUntransposedK } from './signatures';

const tol = { atol: 1e-6, rtol: 1e-4 };
const t = (data: number[], shape: number[]) => ({ data: Float64Array.from(data), shape });
const caseOf = (fixture: string) => GRADED_CASES.find((c) => c.fixture === fixture)!;

/** What a mistake outputs on a fixture, as a student's output. */
function asOutput(fixtureKey: string, mistake: string, scale = 1) {
  const fixture = loadFixture(fixtureKey);
  const stored = fixture.mistakes().get(mistake)!;
  return { fixture, output: { data: Float64Array.from(stored.data, (x) => x * scale), shape: stored.shape } };
}

describe('withinTolerance', () => {
  it('uses atol + rtol·|target|, refuses NaN and another shape', () => {
    expect(withinTolerance(t([1.00009, 0], [2]), t([1, 0], [2]), tol)).toBe(true);
    expect(withinTolerance(t([1.0002, 0], [2]), t([1, 0], [2]), tol)).toBe(false);
    expect(withinTolerance(t([NaN, 0], [2]), t([1, 0], [2]), tol)).toBe(false);
    expect(withinTolerance(t([1, 0], [1, 2]), t([1, 0], [2]), tol)).toBe(false);
  });
});

describe('diagnose an output', () => {
  it("names the mistake whose stored output it matches, within the case's tolerance", () => {
    const { fixture, output } = asOutput('sdpa_3d', 'scale_missing', 1 + 5e-5);
    expect(diagnose(caseOf('sdpa_3d'), fixture, { kind: 'output', output })?.mistake).toBe('scale_missing');
  });

  it('matches nothing beyond tolerance', () => {
    const { fixture, output } = asOutput('sdpa_3d', 'scale_missing', 1.01);
    expect(diagnose(caseOf('sdpa_3d'), fixture, { kind: 'output', output })).toBeUndefined();
  });

  it('names every mistake that gives the same output: −100 and −1e9 on fully masked rows', () => {
    const { fixture, output } = asOutput('sdpa_fully_masked_rows', 'mask_minus_100');
    const diagnosis = diagnose(caseOf('sdpa_fully_masked_rows'), fixture, { kind: 'output', output });
    expect(diagnosis?.mistake).toBe('fully_masked_uniform|mask_minus_100');
    expect(diagnosis?.message).toMatch(/^Your output fits 2 known mistakes\. .* Or: /);
  });

  it('tells −100 from −1e9 where the output is the probabilities: only −100 leaks beside allowed keys', () => {
    for (const mistake of ['mask_minus_100', 'fully_masked_uniform']) {
      const { fixture, output } = asOutput('sdpa_probabilities', mistake);
      expect(diagnose(caseOf('sdpa_probabilities'), fixture, { kind: 'output', output })?.mistake).toBe(mistake);
    }
  });
});

describe('recognise an error', () => {
  const threw = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return { kind: 'threw' as const, name: (err as Error).name, message: (err as Error).message };
    }
    throw new Error('did not throw');
  };
  const q = Tensor.zeros([2, 3, 4]);
  const k = Tensor.zeros([2, 5, 4]);

  it("K not transposed: matmul's inner dims are d_k and n_k", () => {
    expect(matmulWithUntransposedK(threw(() => q.matmul(k)), { q, k })).toBe(true);
    expect(matmulWithUntransposedK(threw(() => q.matmul(Tensor.zeros([2, 6, 4]))), { q, k })).toBe(false);
  });
});

describe('summarise an output no mistake explains', () => {
  it('the share out of tolerance, the largest error and where', () => {
    expect(summarise(t([0, 1, 2.5, 3], [2, 2]), t([0, 1, 2, 3], [2, 2]), tol)).toBe(
      'No known mistake gives this output; 25% of the values (1 of 4 values) are out of tolerance, the largest error is 0.5 at [1, 0].',
    );
  });
  it('a wrong shape', () => {
    expect(summarise(t([0, 1], [2]), t([0, 1], [1, 2]), tol)).toMatch(/shape \[2\] where \[1,2\] is expected/);
  });
});
