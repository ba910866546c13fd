/**
 * The gradients part is fair to every correct float32 backward pass: six reformulations written
 * differently from the reference (selftest/float32/backward.ts: FlashAttention's D = rowsum(dOut ⊙
 * output), the Jacobian formed whole, log-sum-exp, online and tiled softmax, base 2, the scale on
 * dS, on the operands, after the products or split) get full marks on every stored case, on the
 * hidden cases drawn for other names, and on calls drawn from the forward pass's whole domain
 * (selftest/domain/arbitraries.ts, with dOut and dy added), each value within the contract's
 * tolerance or the float32 bound (reference/float32Error/backward.ts). The bound is checked to
 * matter (without it one loses the large-score cases) and to be tight where it widens most.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkClose, checkShape, type Values } from '../../lib/compare';
import { BOUND_NAME } from '../../lib/model/manifest';
import { loadFixture } from '../../lib/model/fixtures';
import { gaussian } from '../../lib/random';
import { Tensor } from '../../lib/tensor';
import * as reference from '../../reference';
import { float32Bound } from '../../reference/float32Error';
import { loadVariants } from '../../reference/fixtures/variants';
import { CONTRACT_TOLERANCE } from '../../tests/cases';
import { build, PLANS, type AttentionPlan, type SoftmaxPlan } from '../domain/arbitraries';
import { BACKWARD_STYLES, backwardSubmissionOf } from '../float32/backward';
import { attentionBackwardByDifferences } from './finiteDifferences';
import { GRADIENT_CASES, gradeGradients } from './kit';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`gradients/fairness.test.ts: fast-check seed ${SEED} (FC_SEED=${SEED} replays this run)`);

const styles = BACKWARD_STYLES.map((style) => ({ name: style.name, impl: backwardSubmissionOf(style) }));
const failures = async (impl: object, name: string, cases = GRADIENT_CASES, fixtureOf?: Parameters<typeof gradeGradients>[3]) =>
  (await gradeGradients(impl, name, cases, fixtureOf)).filter((r) => !r.passed).map((r) => `${r.graded.name}: ${r.message.split('\n')[0]}`);

const LARGE_SCORES = GRADIENT_CASES.filter((c) => /large_scores|rows_apart/.test(c.name));

describe('correct float32 backward passes get full marks', () => {
  it.each(styles.map((s) => [s.name, s] as const))('%s, on every visible and hidden case', async (name, { impl }) => {
    expect(await failures(impl, name)).toEqual([]);
  });

  it('every one, on the hidden cases drawn for 6 names', async () => {
    const names = fc.sample(fc.string({ maxLength: 30 }), { seed: SEED, numRuns: 6 });
    const variants = loadVariants(`secret ${SEED}`);
    const hidden = GRADIENT_CASES.filter((c) => c.hidden);
    const lost: string[] = [];
    for (const drawnFor of names) {
      const drawn = variants.draw(drawnFor, hidden);
      for (const { name, impl } of styles) lost.push(...(await failures(impl, name, hidden, (graded) => drawn.get(graded.fixture)!)).map((l) => `${name} for ${JSON.stringify(drawnFor)}: ${l}`));
    }
    expect(lost).toEqual([]);
  });

  /** Each style's output within the tolerance or the bound of every part, else the first failing part's words. */
  function judged(expected: Record<string, Values>, bound: (part: string) => ArrayLike<number>, output: (name: string) => Record<string, Values>): string[] {
    return styles.flatMap(({ name }) => Object.entries(output(name)).flatMap(([part, got]) => {
      const outcome = checkShape(got, expected[part]).passed ? checkClose(got, expected[part], CONTRACT_TOLERANCE, { name: BOUND_NAME, bounds: () => bound(part) }) : checkShape(got, expected[part]);
      return outcome.passed ? [] : [`${name} ${part}: ${outcome.message}`];
    }));
  }

  it("every one agrees with the float64 gradients on calls drawn from the attention's whole domain, themselves checked by finite differences", () => {
    fc.assert(fc.property(PLANS.scaled_dot_product_attention, (plan) => {
      const { inputs } = build('scaled_dot_product_attention', plan);
      const { batch, nQ, dV, seed } = plan as AttentionPlan;
      const d_out = new Tensor(Float32Array.from(gaussian(nQ * dV * batch.reduce((a, b) => a * b, 1), seed + 7)), [...batch, nQ, dV]);
      const widened = Object.fromEntries(Object.entries({ ...inputs, d_out }).map(([k, t]) => [k, t.dtype === 'bool' ? t : t.astype('float64')]));
      const expected = reference.scaledDotProductAttentionBackward(widened.q, widened.k, widened.v, widened.d_out, widened.mask);
      const differences = attentionBackwardByDifferences(widened.q, widened.k, widened.v, widened.d_out, widened.mask);
      for (const part of ['dQ', 'dK', 'dV'] as const) {
        const agree = checkClose(differences[part], expected[part], { atol: 2e-7, rtol: 1e-6 });
        if (!agree.passed) throw new Error(`the reference's ${part} disagrees with finite differences: ${agree.message}`);
      }
      const all = { ...inputs, d_out };
      const lost = judged(expected, (part) => float32Bound('scaled_dot_product_attention_backward', all, {}, part)!, (name) =>
        styles.find((s) => s.name === name)!.impl.scaledDotProductAttentionBackward(inputs.q, inputs.k, inputs.v, d_out, inputs.mask));
      if (lost.length) throw new Error(lost.join('\n'));
    }), { seed: SEED, numRuns: 40 });
  });

  it("every one agrees with softmaxBackward in float64 on softmax's whole domain", () => {
    fc.assert(fc.property(PLANS.softmax, (plan) => {
      const { inputs: { x }, params: { dim } } = build('softmax', plan);
      const y = reference.softmax(x.astype('float64'), dim).astype(x.dtype);
      const dy = new Tensor(Float32Array.from(gaussian(y.size, (plan as SoftmaxPlan).seed + 7)), [...y.shape]);
      const expected = { dx: reference.softmaxBackward(y.astype('float64'), dy.astype('float64'), dim) };
      const lost = judged(expected, () => float32Bound('softmax_backward', { y, dy }, { dim })!, (name) => ({ dx: styles.find((s) => s.name === name)!.impl.softmaxBackward(y, dy, dim) }));
      if (lost.length) throw new Error(lost.join('\n'));
    }), { seed: SEED + 1, numRuns: 40 });
  });
});

describe('the bound is needed, and tight where it widens', () => {
  it('without it, the backward that recomputes P from the log-sum-exp loses the large-score cases', async () => {
    const lse = styles.find((s) => s.name === 'log_sum_exp_jacobian_matrix')!;
    const unbounded = (graded: (typeof GRADIENT_CASES)[number]) => ({ ...loadFixture(graded.fixture), bound: () => undefined });
    expect((await failures(lse.impl, lse.name, GRADIENT_CASES, unbounded)).map((l) => l.split(':')[0]).sort()).toEqual(LARGE_SCORES.map((c) => c.name).sort());
    expect(await failures(lse.impl, lse.name, LARGE_SCORES)).toEqual([]);
  });

  it.each(LARGE_SCORES.map((c) => [c.name, c] as const))('%s: the reformulations reach a fifth of the bound at some element, and never pass it', (_, graded) => {
    const fixture = loadFixture(graded.fixture);
    const { q, k, v, d_out: dOut, mask } = fixture.inputs;
    let reached = 0;
    for (const { impl } of styles) {
      const output = impl.scaledDotProductAttentionBackward(q, k, v, dOut, mask);
      for (const part of ['dQ', 'dK', 'dV'] as const) {
        const bound = fixture.bound(part)!.data;
        // A bound of 0 (a masked position) is met exactly: 0 / 0 says nothing.
        for (let i = 0; i < bound.length; i++) if (bound[i] > 0) reached = Math.max(reached, Math.abs(output[part].data[i] - fixture.parts[part].data[i]) / bound[i]);
      }
    }
    expect(reached).toBeGreaterThan(0.2);
    expect(reached).toBeLessThanOrEqual(1);
  });
});
