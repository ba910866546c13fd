/**
 * Fair to every correct float32 computation (issue 43): reformulations written differently from
 * the reference (selftest/float32/styles.ts: base-2 exp with log₂e folded into the scale,
 * log-sum-exp, online and tiled softmax, pairwise and reversed sums, Q pre-scaled, weights
 * multiplied first) get full marks on every stored case, on the hidden cases drawn for many names,
 * and against the float64 oracle on calls drawn from every class of the domain: each element
 * within the contract's tolerance or the case's float32 error bound (reference/float32Error/, stored
 * beside each case as bound.npy, computed for a drawn one). The
 * bound is checked to matter (without it the base-2 step loses the large-score cases) and to be
 * tight where it widens (the reformulations reach a fair share of it there).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkClose, checkShape } from '../lib/compare';
import { loadVariants } from '../reference/fixtures/variants';
import { CONTRACT_TOLERANCE, GRADED_CASES } from '../tests/cases';
import { float32Bound } from '../reference/float32Error';
import { BOUND_NAME } from '../lib/model/manifest';
import { answerOf, caller } from './calls';
import { build, PLANS, type Plan, type SweptFunction } from './domain/arbitraries';
import { STYLES } from './float32/styles';
import { submissionOf } from './float32/submission';
import { gradeDraws } from './gradeDraws';
import { gradeInProcess } from './gradeInProcess';
import { loadFixture } from '../lib/model/fixtures';
import * as oracle from './oracle';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`float32Fairness.test.ts: fast-check seed ${SEED} (FC_SEED=${SEED} replays this run)`);

const submissions = STYLES.map((style) => ({ name: style.name, impl: submissionOf(style) }));
const failures = async (impl: (typeof submissions)[number]['impl'], name: string, cases = GRADED_CASES) =>
  (await gradeInProcess(impl, name, cases)).filter((r) => !r.passed).map((r) => `${r.graded.name}: ${r.message.split('\n')[0]}`);

describe('correct float32 reformulations get full marks', () => {
  it.each(submissions.map((s) => [s.name, s] as const))('%s, on every visible and hidden case', async (name, { impl }) => {
    expect(await failures(impl, name)).toEqual([]);
  });

  it('every one, on the hidden cases drawn for 8 names', async () => {
    const names = fc.sample(fc.string({ maxLength: 30 }), { seed: SEED, numRuns: 8 });
    const graded = await gradeDraws(submissions, loadVariants(`secret ${SEED}`), names);
    expect(graded.failures).toEqual([]);
    expect(graded.calls).toBe(8 * GRADED_CASES.filter((c) => c.hidden).length * STYLES.length);
  });

  // Every domain class's calls, against the float64 oracle, under the bound the cases declare.
  const fns: SweptFunction[] = ['softmax', 'scaled_dot_product_attention', 'multihead_self_attention'];
  it.each(fns.map((fn, i) => [fn, i] as const))('every one agrees with the oracle on calls drawn from the whole domain of %s', (fn, i) => {
    fc.assert(
      fc.property(PLANS[fn], (plan: Plan) => {
        const data = build(fn, plan);
        const expected = answerOf<oracle.Out>(oracle, fn, data);
        for (const { name, impl } of submissions) {
          const output = caller(impl, name)(fn, data);
          const outcome = checkShape(output, expected).passed
            ? checkClose(output, expected, CONTRACT_TOLERANCE, { name: BOUND_NAME, bounds: () => float32Bound(fn, data.inputs, data.params)! })
            : checkShape(output, expected);
          if (!outcome.passed) throw new Error(`${name}: ${outcome.message}`);
        }
      }),
      { seed: SEED + i, numRuns: 12 },
    );
  });
});

describe('the bound is needed, and tight where it widens', () => {
  const largeScores = GRADED_CASES.filter((c) => /large_scores|rows_apart/.test(c.name) && c.fn === 'scaled_dot_product_attention');

  it('without it, base-2 exp with log₂e folded into the scale loses the large-score cases', async () => {
    const base2 = submissions.find((s) => s.name === 'base2_folded_scale')!;
    const unbounded = (graded: (typeof GRADED_CASES)[number]) => ({ ...loadFixture(graded.fixture), bound: () => undefined });
    const lost = (await gradeInProcess(base2.impl, base2.name, GRADED_CASES, unbounded)).filter((r) => !r.passed).map((r) => `${r.graded.name}: ${r.message.split('\n')[0]}`);
    expect(lost.map((l) => l.split(':')[0]).sort()).toEqual(largeScores.map((c) => c.name).sort());
    expect(await failures(base2.impl, base2.name, largeScores)).toEqual([]);
  });

  it.each(largeScores.map((c) => [c.name, c] as const))('%s: the reformulations reach a fifth of the bound at some element', (_, graded) => {
    const fixture = loadFixture(graded.fixture);
    const bound = fixture.bound()!.data;
    let reached = 0;
    for (const { name, impl } of submissions) {
      const output = caller(impl, name)(graded.fn, fixture);
      for (let i = 0; i < bound.length; i++) reached = Math.max(reached, Math.abs(output.data[i] - fixture.expected.data[i]) / bound[i]);
    }
    expect(reached).toBeGreaterThan(0.2);
    expect(reached).toBeLessThanOrEqual(1);
  });
});
