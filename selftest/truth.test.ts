/**
 * Every fixture's expected output must agree with an independent float64 computation
 * (selftest/oracle.ts), so a bug in the reference cannot become the expected answer.
 */
import { describe, expect, it } from 'vitest';
import { loadFixture, type LoadedFixture } from '../lib/model/fixtures';
import { reach, unreached } from './domain/coverage';
import { ALL_CASES, GRADED_CASES } from '../tests/cases';
import { PARTS } from '../tests/parts';
import { answerOf } from './calls';
import * as oracle from './oracle';

/** Float32 storage of a float64 value is within 6e-8 relative; anything wider is a real disagreement. */
const AGREEMENT = { atol: 1e-7, rtol: 1e-6 };


function disagreement(fixture: LoadedFixture, computed: oracle.Out, expected: oracle.Arr = fixture.expected): string | undefined {
  if (computed.shape.join() !== expected.shape.join()) return `shape ${computed.shape} vs ${expected.shape}`;
  for (let i = 0; i < computed.data.length; i++) {
    const err = Math.abs(computed.data[i] - expected.data[i]);
    if (!(err <= AGREEMENT.atol + AGREEMENT.rtol * Math.abs(computed.data[i]))) {
      return `element ${i}: oracle ${computed.data[i]}, expected.npy ${expected.data[i]}`;
    }
  }
  return undefined;
}

describe('expected outputs agree with the independent float64 oracle', () => {
  // Every part's fixtures, whatever the switch grades (tests/parts.ts): the generator makes them all.
  // The gradients part's are held to central finite differences of this oracle's forward pass
  // instead (selftest/gradients/truth.test.ts): the oracle has no backward pass of its own.
  const gradients = new Set(PARTS.find((p) => p.id === 'gradients')!.functions);
  it.each(ALL_CASES.filter((c) => !gradients.has(c.fn)).map((c) => [c.fixture, c] as const))('%s', (_, graded) => {
    const fixture = loadFixture(graded.fixture, { verify: true });
    const computed = answerOf<oracle.Out | Record<string, oracle.Out | undefined>>(oracle, graded.fn, fixture);
    const parts = Object.entries(fixture.parts);
    if (parts.length === 0) return expect(disagreement(fixture, computed as oracle.Out)).toBeUndefined();
    // A tuple: each part stored (expected_<part>.npy) against the oracle's, and none the call leaves out.
    const oracleParts = Object.entries(computed).filter(([, out]) => out !== undefined);
    expect(oracleParts.map(([name]) => name)).toEqual(parts.map(([name]) => name));
    for (const [name, expected] of parts) expect(disagreement(fixture, (computed as Record<string, oracle.Out>)[name], expected), name).toBeUndefined();
  });

  const attentionCases = GRADED_CASES.filter((c) => c.fn === 'scaled_dot_product_attention');
  it.each(attentionCases.map((c) => [c.fixture, c] as const))('probabilities.npy of %s: the oracle with V = identity', (_, graded) => {
    const fixture = loadFixture(graded.fixture, { verify: true });
    const { q, k, mask } = fixture.inputs;
    const keys = k.shape[k.shape.length - 2];
    const identity = { data: Float64Array.from({ length: keys * keys }, (_, i) => Number(i % (keys + 1) === 0)), shape: [keys, keys] };
    // The oracle reads V per batch entry: repeat the identity over the batch dims.
    const batches = k.data.length / (keys * k.shape[k.shape.length - 1]);
    const repeated = { data: Float64Array.from({ length: batches * keys * keys }, (_, i) => identity.data[i % (keys * keys)]), shape: [...k.shape.slice(0, -2), keys, keys] };
    const probabilities = fixture.probabilities();
    expect(probabilities).toBeDefined();
    expect(disagreement(fixture, oracle.scaledDotProductAttention(q, k, repeated, mask), probabilities)).toBeUndefined();
  });

  it('the fixtures checked above reach every class of the domain: 2-D attention, every mask broadcast, float64 inputs…', () => {
    // The oracle broadcasts by index arithmetic and reads any number of batch dims: each class is
    // checked against it through at least one fixture (lib/model/domain.ts).
    expect(unreached(reach(GRADED_CASES, (c) => loadFixture(c.fixture))).map((c) => c.id)).toEqual([]);
  });

  it('the comparison catches a 1e-5 relative error in one element', () => {
    const fixture = loadFixture('sdpa_3d');
    const computed = answerOf<oracle.Out>(oracle, 'scaled_dot_product_attention', fixture);
    computed.data[100] *= 1 + 1e-5;
    expect(disagreement(fixture, computed)).toMatch(/element 100/);
  });

  it('the oracle disagrees with attention computed without the 1/√d_k scale', () => {
    const fixture = loadFixture('sdpa_3d');
    const { q, k, v, mask } = fixture.inputs;
    const unscaledQ = { data: Float64Array.from(q.data, (x) => x * 8), shape: q.shape };
    expect(disagreement(fixture, oracle.scaledDotProductAttention(unscaledQ, k, v, mask))).toBeDefined();
  });
});
