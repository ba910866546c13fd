/**
 * The gradients part's expected values are gradients: every stored case's (visible and hidden), and
 * those of cases drawn for other names, agree with central finite differences of the independent
 * float64 forward pass (finiteDifferences.ts), so neither a bug in the reference's chain rule nor
 * one in the tensor module it uses can become the truth. Each tuple case carries a float32 bound
 * per part, read apart from its inputs.
 */
import { describe, expect, it } from 'vitest';
import type { Values } from '../../lib/compare';
import { loadFixture, type LoadedFixture } from '../../lib/model/fixtures';
import { loadVariants } from '../../reference/fixtures/variants';
import * as reference from '../../reference';
import { attentionBackwardByDifferences, softmaxBackwardByDifferences } from './finiteDifferences';
import { GRADIENT_CASES } from './kit';

/**
 * The expected value stored as float32 is within 6e-8 relative; finite differences with h = 1e-5
 * are within about 1e-7 absolute on these inputs (their third derivatives are largest on the
 * large-score cases). Anything wider is a real disagreement.
 */
const AGREEMENT = { atol: 2e-7, rtol: 1e-6 };

function disagreement(computed: Values, expected: Values, what: string): string | undefined {
  if (computed.shape.join() !== expected.shape.join()) return `${what}: shape [${computed.shape}] vs [${expected.shape}]`;
  for (let i = 0; i < computed.data.length; i++) {
    if (!(Math.abs(computed.data[i] - expected.data[i]) <= AGREEMENT.atol + AGREEMENT.rtol * Math.abs(computed.data[i]))) {
      return `${what} element ${i}: finite differences ${computed.data[i]}, expected ${expected.data[i]}`;
    }
  }
  return undefined;
}

/** Each part of the case's expected gradients against finite differences: the first disagreement, or undefined. */
function checked(fn: string, fixture: Pick<LoadedFixture, 'inputs' | 'params' | 'expected' | 'parts'>): string | undefined {
  const { y, dy, q, k, v, d_out: dOut, mask } = fixture.inputs;
  if (fn === 'softmax_backward') return disagreement(softmaxBackwardByDifferences(y, dy, fixture.params.dim), fixture.expected, 'expected.npy');
  const differences = attentionBackwardByDifferences(q, k, v, dOut, mask);
  return (['dQ', 'dK', 'dV'] as const).map((p) => disagreement(differences[p], fixture.parts[p], `expected_${p}.npy`)).find(Boolean);
}

describe('expected gradients agree with finite differences of the float64 forward pass', () => {
  it.each(GRADIENT_CASES.map((c) => [c.fixture, c] as const))('%s', (_, graded) => {
    expect(checked(graded.fn, loadFixture(graded.fixture, { verify: true }))).toBeUndefined();
  });

  it('on the hidden cases drawn for 3 other names', () => {
    const variants = loadVariants('finite differences');
    for (const name of ['ada', 'grace', 'alan']) {
      for (const [key, built] of variants.draw(name, GRADIENT_CASES)) {
        expect(checked(GRADIENT_CASES.find((c) => c.fixture === key)!.fn, built), `${name}: ${key}`).toBeUndefined();
      }
    }
  });

  it('the comparison catches a 1e-5 relative error in one element, and a backward without the 1/√d_k', () => {
    const fixture = loadFixture('sdpa_backward_3d');
    const { q, k, v, d_out: dOut, mask } = fixture.inputs;
    const differences = attentionBackwardByDifferences(q, k, v, dOut, mask);
    const nudged = Float64Array.from(fixture.parts.dK.data);
    nudged[100] *= 1 + 1e-5;
    expect(disagreement(differences.dK, { data: nudged, shape: fixture.parts.dK.shape }, 'dK')).toMatch(/element 100/);
    // Q scaled by √d_k: the scores of a backward that forgot the scale, its dQ then the unscaled one's.
    const unscaled = reference.scaledDotProductAttentionBackward(q.astype('float64').mul(Math.sqrt(32)), k.astype('float64'), v.astype('float64'), dOut.astype('float64'), mask);
    expect(disagreement(differences.dK, unscaled.dK, 'dK')).toBeDefined();
  });

  it("the Jacobian's −y·(y·dy) term dropped disagrees with them", () => {
    const fixture = loadFixture('softmax_backward_last_dim');
    const { y, dy } = fixture.inputs;
    expect(disagreement(softmaxBackwardByDifferences(y, dy, -1), y.astype('float64').mul(dy), 'dx')).toBeDefined();
  });
});

describe("a tuple case's bound, one file per part", () => {
  it.each(GRADIENT_CASES.filter((c) => c.fn === 'scaled_dot_product_attention_backward').map((c) => [c.fixture, c] as const))('%s', (_, graded) => {
    const fixture = loadFixture(graded.fixture, { verify: true });
    for (const part of ['dQ', 'dK', 'dV']) {
      expect(fixture.bound(part)?.shape, part).toEqual(fixture.parts[part].shape);
      expect(Object.keys(fixture.inputs).filter((name) => name.startsWith('bound'))).toEqual([]);
    }
    expect(fixture.bound()).toBeUndefined();
  });
});
