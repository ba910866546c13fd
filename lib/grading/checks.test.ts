import { describe, expect, it } from 'vitest';
import type { GradedCase } from '../assignment/cases';
import { evaluateCase } from './checks';
import { LARGEST_SPEC } from './largestSpec.testkit';

/** A function returning a tuple (largestSpec.testkit.ts). */
const SPEC = LARGEST_SPEC;

const CASE: GradedCase = {
  name: 'test_largest', fn: 'largest', points: 1, fixture: 'largest', hidden: false,
  tolerance: { atol: 1e-6, rtol: 1e-4 }, checks: [], what: 'the 3 largest of each row',
};

const t = (data: number[], shape: number[]) => ({ data: Float64Array.from(data), shape });
const evidence = (values: number[], indices: number[]) => ({ expected: { values: t(values, [2, 3]), indices: t(indices, [2, 3]) }, inputs: {}, params: { k: 3 } });
const outputs = (values: number[], indices: number[]) => new Map([['values', t(values, [2, 3])], ['indices', t(indices, [2, 3])]]);

describe('evaluateCase, a tuple return', () => {
  const values = [0.9, 0.5, 0.25, 2, 1.5, -1];
  const indices = [4, 0, 2, 1, 3, 0];

  it('indices are compared exactly, each entry moved by one either way fails and names its part', () => {
    expect(evaluateCase(SPEC, CASE, outputs(values, indices), evidence(values, indices)).passed).toBe(true);
    for (let at = 0; at < indices.length; at++) {
      for (const step of [-1, 1]) {
        const moved = indices.map((v, i) => (i === at ? v + step : v));
        const verdict = evaluateCase(SPEC, CASE, outputs(values, moved), evidence(values, indices));
        expect(verdict.passed, `${at} ${step}`).toBe(false);
        expect(verdict.message).toMatch(/^indices: 1 of 6 values differ \(compared exactly\)/);
      }
    }
  });

  it('a part\'s own tolerance (partTolerance) applies to it alone; the others keep the case\'s', () => {
    const near = values.map((v) => v * (1 + 1e-6));
    expect(evaluateCase(SPEC, CASE, outputs(near, indices), evidence(values, indices)).passed).toBe(true);
    const exactValues = { ...CASE, partTolerance: { values: { atol: 0, rtol: 0 } } };
    const verdict = evaluateCase(SPEC, exactValues, outputs(near, indices), evidence(values, indices));
    expect(verdict.message).toMatch(/^values: 6 of 6 values out of tolerance \(atol 0, rtol 0\)/);
    expect(verdict.message.split('\n')).toHaveLength(1);
  });

  it('a wrong shape is said of its part, before any value is read', () => {
    const verdict = evaluateCase(SPEC, CASE, new Map([['values', t(values, [2, 3])], ['indices', t(indices, [3, 2])]]), evidence(values, indices));
    expect(verdict.message).toBe('indices: expected shape [2,3], got [3,2]');
  });
});
