/**
 * The domain is covered (lib/model/domain.ts): every class the contract allows is reached by a
 * visible or hidden case of tests/cases.ts, computed from the cases' own inputs; every hidden case
 * is a draw whose every draw reaches the classes of the one stored; and with every submission's
 * draws the whole domain is still covered. Names and secrets are drawn by fast-check (the seed is
 * printed; FC_SEED=<seed> replays).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadFixture } from '../lib/model/fixtures';
import { classesOf } from './domain/classify';
import { reach, unreached } from './domain/coverage';
import { DOMAIN } from './domain/domain';
import { drawSpec, isDrawn } from '../reference/fixtures/draw';
import { buildCase } from '../reference/fixtures/caseBuild';
import { CASE_REFERENCE } from '../reference/fixtures/outputs';
import { FIXTURE_SPECS } from '../reference/fixtures/specs';
import { loadVariants } from '../reference/fixtures/variants';
import { GRADED_CASES, type GradedCase } from '../tests/cases';

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`domain.test.ts: fast-check seed ${SEED} (FC_SEED=${SEED} replays this run)`);

const stored = new Map(GRADED_CASES.map((c) => [c.name, loadFixture(c.fixture)]));
const storedReach = reach(GRADED_CASES, (c) => stored.get(c.name)!);
const hidden = GRADED_CASES.filter((c) => c.hidden);

describe('every class of the domain is reached by a case', () => {
  it('the case table reaches every class', () => {
    expect(unreached(storedReach).map((c) => `${c.id} (${c.about})`)).toEqual([]);
  });

  it('a class whose only case is left out is named as unreached', () => {
    // Every class with exactly one case: without that case, the check must name the class.
    const only = DOMAIN.map((c) => [c, GRADED_CASES.filter((g) => storedReach.get(g.name)!.includes(c.id))] as const).filter(([, cases]) => cases.length === 1);
    expect(only.length).toBeGreaterThan(10);
    for (const [domainClass, [sole]] of only) {
      const without = reach(GRADED_CASES.filter((g) => g !== sole), (c) => stored.get(c.name)!);
      expect(unreached(without).map((c) => c.id), `without ${sole.name}`).toContain(domainClass.id);
    }
  });

  it('each function has classes, and every class id names its function', () => {
    for (const c of DOMAIN) expect(c.id.startsWith(`${c.fn}: `), c.id).toBe(true);
    expect(new Set(DOMAIN.map((c) => c.id)).size).toBe(DOMAIN.length);
  });
});

describe('hidden cases are draws', () => {
  it('every hidden case is drawn, every visible one fixed', () => {
    expect(hidden.filter((c) => !isDrawn(FIXTURE_SPECS[c.fixture])).map((c) => c.name)).toEqual([]);
    expect(GRADED_CASES.filter((c) => !c.hidden && isDrawn(FIXTURE_SPECS[c.fixture])).map((c) => c.name)).toEqual([]);
  });

  it('every draw of a case reaches the classes of its stored draw, and every submission\'s draws cover the domain', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (name, secret) => {
        const drawn = loadVariants(secret).draw(name, GRADED_CASES);
        for (const c of hidden) {
          const classes = classesOf(c.fn, drawn.get(c.fixture)!);
          expect(classes.sort(), `${c.name} drawn for ${JSON.stringify(name)}`).toEqual(classesOf(c.fn, stored.get(c.name)!).sort());
        }
        const withDraws = reach(GRADED_CASES, (c) => (c.hidden ? drawn.get(c.fixture)! : stored.get(c.name)!));
        expect(unreached(withDraws).map((c) => c.id)).toEqual([]);
      }),
      { seed: SEED, numRuns: 25 },
    );
  });

  it('the stored hidden fixtures are a draw like any other: the generator draws them', () => {
    const c = hidden[0];
    const built = buildCase(c, c.fixture, drawSpec(FIXTURE_SPECS[c.fixture], 'fixtures', c.fixture), CASE_REFERENCE);
    expect(Array.from(built.inputs.x.data)).toEqual(Array.from(stored.get(c.name)!.inputs.x.data));
  });
});

describe('what a case reaches is computed, not declared', () => {
  const one = (name: string): GradedCase => GRADED_CASES.find((c) => c.name === name)!;
  it.each([
    ['test_softmax_negative_dim', ['softmax: dim -2 of 3-D', 'softmax: repeated']],
    ['test_scaled_dot_product_attention_no_batch_dims', ['scaled_dot_product_attention: 0 batch dims', 'scaled_dot_product_attention: mask full']],
    ['test_scaled_dot_product_attention_mask_batch_dim_1', ['scaled_dot_product_attention: mask last batch dim 1']],
    ['test_multihead_self_attention_called_again', ['multihead_self_attention: repeated']],
  ])('%s', (name, classes) => {
    expect(storedReach.get(one(name).name)).toEqual(expect.arrayContaining(classes));
  });

  it('a call with the same shapes and the same expected output is no repeat: a stale answer would pass', () => {
    const c = one('test_softmax_last_dim');
    const twice = reach([c, { ...c, name: 'again' }], () => stored.get(c.name)!);
    expect(twice.get('again')).not.toContain('softmax: repeated');
  });
});
