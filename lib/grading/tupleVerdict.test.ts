import { describe, expect, it } from 'vitest';
import type { GradedCase } from '../assignment/cases';
import { explain } from '../diagnosis/explain';
import type { ProbeContext } from '../diagnosis/probe';
import type { LoadedFixture } from '../model/fixtures';
import { Tensor } from '../tensor';
import { judgeValue } from './verdict';
import { LARGEST_SPEC } from './largestSpec.testkit';

/** A function returning a tuple (largestSpec.testkit.ts), with no diagnosis: its failures get the generic notes. */
const SPEC = LARGEST_SPEC;
const CASE: GradedCase = {
  name: 'test_largest', fn: 'largest', points: 1, fixture: 'largest', hidden: false,
  tolerance: { atol: 1e-6, rtol: 1e-4 }, checks: [], what: 'the 2 largest of each row',
};

const x = new Tensor(Float32Array.from([3, 1, 2, 0, 5, 4]), [2, 3]);
const values = new Tensor(Float32Array.from([3, 2, 5, 4]), [2, 2]);
const indices = new Tensor(Float32Array.from([0, 2, 1, 2]), [2, 2]);
const FIXTURE: LoadedFixture = {
  key: 'largest', params: { k: 2 }, inputs: { x }, expected: values, parts: { values, indices },
  probabilities: () => undefined, mistakes: () => new Map(), bound: () => undefined,
};
/** With no diagnosis nothing is probed. */
const context: ProbeContext = { probe: async () => ({ kind: 'none', why: 'not probed' }), failures: async () => [] };
const returned = (v: Tensor, i: Tensor) => [{ name: 'values', value: v }, { name: 'indices', value: i }];

describe('judgeValue and explain, a tuple return with no diagnosis', () => {
  it('indices off by one: the failure names its part, and the note says they differ, compared exactly', async () => {
    const verdict = judgeValue({ functions: [SPEC] }, CASE, returned(values, new Tensor(indices.data.map((v) => v + 1), [2, 2])), FIXTURE);
    expect(verdict.reason).toBe('indices: 4 of 4 values differ (compared exactly); first at [0, 0]: expected 0, got 1');
    expect(verdict.evidence).toMatchObject({ kind: 'output', part: 'indices', exact: true });
    const { note, diagnosis } = await explain(undefined, CASE, FIXTURE, verdict.evidence!, context);
    expect(diagnosis).toBeUndefined();
    expect(note).toBe('No known cause shows in what your function returns; 100% of the values (4 of 4 values) differ from the expected ones (compared exactly), the largest difference is 1 at [0, 0].');
  });

  it('values off: its part\'s own tolerance decides, and the note reads the same tolerance', async () => {
    const near = new Tensor(values.data.map((v, i) => (i === 3 ? v + 1e-5 : v)), [2, 2]);
    expect(judgeValue({ functions: [SPEC] }, CASE, returned(near, indices), FIXTURE).status).toBe('passed');
    const exact = { ...CASE, partTolerance: { values: { atol: 0, rtol: 0 } } };
    const verdict = judgeValue({ functions: [SPEC] }, exact, returned(near, indices), FIXTURE);
    expect(verdict.reason).toMatch(/^values: 1 of 4 values out of tolerance \(atol 0, rtol 0\); first at \[1, 1\]/);
    expect(verdict.evidence).toMatchObject({ kind: 'output', part: 'values' });
    expect(verdict.evidence).not.toHaveProperty('exact');
    const { note } = await explain(undefined, exact, FIXTURE, verdict.evidence!, context);
    expect(note).toMatch(/^No known cause shows in what your function returns; 25% of the values \(1 of 4 values\) are out of tolerance, the largest error is 1\.\d+e-5 at \[1, 1\]\.$/);
  });
});

describe("a tuple return's float32 bound, part by part", () => {
  // Exact values (atol 0, rtol 0): only the bound can let an error through.
  const exact = { ...CASE, partTolerance: { values: { atol: 0, rtol: 0 } } };
  const off = new Tensor(values.data.map((v, i) => (i === 3 ? v + 1e-5 : v)), [2, 2]);
  const boundOf = (part: string | undefined) => (part === 'values' ? new Tensor(Float64Array.from([0, 0, 0, 2e-5]), [2, 2]) : undefined);

  it("widens its own part's tolerance, read from bound(part)", () => {
    const asked: (string | undefined)[] = [];
    const fixture = { ...FIXTURE, bound: (part?: string) => (asked.push(part), boundOf(part)) };
    expect(judgeValue({ functions: [SPEC] }, exact, returned(off, indices), fixture).status).toBe('passed');
    expect(asked).toEqual(['values']);
  });

  it('without it the same error fails, and a bound beyond which it fails is named', () => {
    expect(judgeValue({ functions: [SPEC] }, exact, returned(off, indices), FIXTURE).reason).toMatch(/^values: 1 of 4 values out of tolerance \(atol 0, rtol 0\)/);
    const tight = { ...FIXTURE, bound: (part?: string) => (part === 'values' ? new Tensor(Float64Array.from([0, 0, 0, 5e-6]), [2, 2]) : undefined) };
    expect(judgeValue({ functions: [SPEC] }, exact, returned(off, indices), tight).reason).toMatch(/or the float32 error bound of this case where wider\); first at \[1, 1\].*beyond the float32 error bound of this case \(≤ 5e-6 here\)/);
  });
});
