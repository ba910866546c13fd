import { describe, expect, it } from 'vitest';
import { GRADED_CASES } from '../../tests/cases';
import { loadFixture } from '../../lib/model/fixtures';
import { Tensor } from '../../lib/tensor';
import { summarise } from '../../lib/diagnosis/explain';
import { diagnose } from '../../tests/diagnosis/diagnose';
import { withinTolerance, type ProbeContext } from '../../lib/diagnosis/probe';
import { fitScale, readMask } from '../../tests/diagnosis/readProbabilities';
import { matmulWithUntransposedK } from '../../tests/diagnosis/signatures';

const tol = { atol: 1e-6, rtol: 1e-4 };
const t = (data: number[], shape: number[]) => ({ data: Float64Array.from(data), shape });
const caseOf = (fixture: string) => GRADED_CASES.find((c) => c.fixture === fixture)!;
const noProbes: ProbeContext = { probe: async () => ({ kind: 'none', why: 'no probes here' }), failures: async () => [] };

describe('withinTolerance', () => {
  it('uses atol + rtol·|target|, refuses NaN and another shape', () => {
    expect(withinTolerance(t([1.00009, 0], [2]), t([1, 0], [2]), tol)).toBe(true);
    expect(withinTolerance(t([1.0002, 0], [2]), t([1, 0], [2]), tol)).toBe(false);
    expect(withinTolerance(t([NaN, 0], [2]), t([1, 0], [2]), tol)).toBe(false);
    expect(withinTolerance(t([1, 0], [1, 2]), t([1, 0], [2]), tol)).toBe(false);
  });
});

describe('reading probabilities', () => {
  // One query, three keys with raw scores 0, 1, 2; probabilities ∝ e^(s/2).
  const grid = { batches: 1, queries: 1, keys: 3 };
  const scores = [0, 1, 2];
  const softmaxOf = (logits: number[]) => logits.map((l) => Math.exp(l) / logits.reduce((a, x) => a + Math.exp(x), 0));
  const all = Uint8Array.of(1, 1, 1);

  it('fits the scale from log-probability differences, and says when nothing fits', () => {
    const fit = fitScale(softmaxOf([0, 0.5, 1]), scores, all, grid, 'keys');
    expect(fit.scale).toBeCloseTo(0.5, 9);
    expect(fit.misfit).toBeLessThan(1e-9);
    expect(fitScale([0.2, 0.7, 0.1], scores, all, grid, 'keys').misfit).toBeGreaterThan(0.1);
  });

  it('a masked key with a finite fill: its scaled score is read back', () => {
    const allowed = Uint8Array.of(1, 1, 0);
    const p = softmaxOf([0, 0.5, -100]);
    const fit = fitScale(p, scores, allowed, grid, 'keys');
    const reading = readMask(p, scores, allowed, grid, fit);
    expect(reading.leaks).toBe(1);
    expect(reading.ignored).toBe(false);
    expect(reading.fill).toBeCloseTo(-100, 6);
  });
});

describe('diagnose without probes', () => {
  it('names the softmax mistake whose stored output it matches, within tolerance', async () => {
    const fixture = loadFixture('softmax_middle_dim');
    const stored = fixture.mistakes().get('softmax_wrong_dim')!;
    const output = { data: Float64Array.from(stored.data, (x) => x * (1 + 5e-5)), shape: stored.shape };
    expect((await diagnose(caseOf('softmax_middle_dim'), fixture, { kind: 'output', output }, noProbes))?.mistake).toBe('softmax_wrong_dim');
    const far = { data: Float64Array.from(stored.data, (x) => x * 1.01), shape: stored.shape };
    // Not the stored mistake: only what the output itself shows is said.
    expect((await diagnose(caseOf('softmax_middle_dim'), fixture, { kind: 'output', output: far }, noProbes))?.mistake).toBe('softmax_sums');
  });

  it('a stored output with one value everywhere confirms nothing: causalMask(1) = [[0]] names no mistake, only its wrong cell', async () => {
    const graded = caseOf('causal_mask_1');
    const fixture = loadFixture('causal_mask_1');
    expect(fixture.mistakes().get('causal_off_by_one')?.data[0]).toBe(0);
    expect((await diagnose(graded, fixture, { kind: 'output', output: t([0], [1, 1]) }, noProbes))?.mistake).toBe('causal_cells');
    // On causalMask(5) the same mistake has a shape of its own, and is named.
    const five = loadFixture('causal_mask_5');
    const offByOne = five.mistakes().get('causal_off_by_one')!;
    expect((await diagnose(caseOf('causal_mask_5'), five, { kind: 'output', output: offByOne }, noProbes))?.mistake).toBe('causal_off_by_one');
  });

  it('an attention failure no probe answers has no diagnosis', async () => {
    const fixture = loadFixture('sdpa_3d');
    const output = { data: new Float64Array(fixture.expected.size).fill(0.5), shape: fixture.expected.shape };
    expect(await diagnose(caseOf('sdpa_3d'), fixture, { kind: 'output', output }, noProbes)).toBeUndefined();
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
    expect(matmulWithUntransposedK(threw(() => q.matmul(k)), { q, k }, {})).toBe(true);
    expect(matmulWithUntransposedK(threw(() => q.matmul(Tensor.zeros([2, 6, 4]))), { q, k }, {})).toBe(false);
  });
});

describe('summarise an output no mistake explains', () => {
  it('the share out of tolerance, the largest error and where', () => {
    expect(summarise(t([0, 1, 2.5, 3], [2, 2]), t([0, 1, 2, 3], [2, 2]), tol)).toBe(
      'No known cause shows in what your function returns; 25% of the values (1 of 4 values) are out of tolerance, the largest error is 0.5 at [1, 0].',
    );
  });
  it('a wrong shape', () => {
    expect(summarise(t([0, 1], [2]), t([0, 1], [1, 2]), tol)).toMatch(/shape \[2\] where \[1,2\] is expected/);
  });
});

describe('what a softmax or causal-mask output shows when no stored mistake matches', () => {
  const fixture = loadFixture('softmax_middle_dim');
  const graded = caseOf('softmax_middle_dim');
  const { x } = fixture.inputs;
  const along = (f: (v: number, i: number) => number) => ({ kind: 'output' as const, output: { data: Float64Array.from(fixture.expected.data, f), shape: fixture.expected.shape } });

  it('slices along dim that do not sum to 1: the first one, as x[o, :, i]', async () => {
    const found = await diagnose(graded, fixture, along((v, i) => (i === 5 ? v * 1.5 : v)), noProbes);
    expect(found?.mistake).toBe('softmax_sums');
    expect(found?.message).toMatch(/\(The first slice that does not, x\[0, :, 1\], sums to 1\.\d+\.\)$/);
  });

  it('slices that sum to 1 but not in the proportions of exp(x)', async () => {
    // Each slice of 6 values made uniform: it sums to 1, and x differs along it.
    const found = await diagnose(graded, fixture, along(() => 1 / 6), noProbes);
    expect(found?.mistake).toBe('softmax_not_exp');
    expect(found?.message.endsWith('(The first slice where they are not: x[0, :, 0].)')).toBe(true);
    expect(x.shape[1]).toBe(6);
  });

  it("a causal mask's wrong cells: the future let in, the diagonal hidden, and the first of each", async () => {
    const mask = loadFixture('causal_mask_5');
    const data = Uint8Array.from(mask.expected.data);
    data[1] = 1; // query 0 sees key 1
    data[2 * 5 + 2] = 0; // query 2 does not see itself
    const found = await diagnose(caseOf('causal_mask_5'), mask, { kind: 'output', output: { data, shape: [5, 5] } }, noProbes);
    expect(found?.mistake).toBe('causal_cells');
    expect(found?.message).toMatch(/\(Your mask has 1 cell where a query sees a later key \(the first: query 0, key 1\), and 1 cell where a query does not see itself or an earlier key \(the first: query 2, key 2\)\.\)$/);
  });
});
