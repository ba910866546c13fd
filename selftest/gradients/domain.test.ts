/**
 * The attention backward is graded on every shape the forward pass takes: its cases (stored and
 * drawn for other names) reach every class of scaled dot-product attention's domain
 * (selftest/domain/), as computed from their Q, K, V and mask, and a call repeated with new values.
 * softmaxBackward reaches 1- to 4-D inputs, a dim counted from the end and from the start, float64,
 * masked zeros, and a repeated call.
 */
import { describe, expect, it } from 'vitest';
import { loadFixture, type LoadedFixture } from '../../lib/model/fixtures';
import { loadVariants } from '../../reference/fixtures/variants';
import { classesOf } from '../domain/classify';
import { reach } from '../domain/coverage';
import { DOMAIN } from '../domain/domain';
import { GRADIENT_CASES } from './kit';

const ATTENTION = GRADIENT_CASES.filter((c) => c.fn === 'scaled_dot_product_attention_backward');
const SOFTMAX = GRADIENT_CASES.filter((c) => c.fn === 'softmax_backward');
const FORWARD = 'scaled_dot_product_attention';

/** The forward classes the attention backward's cases reach, a repeat included (coverage.ts: the same shapes, another expected dQ). */
function reached(fixtureOf: (key: string) => LoadedFixture): Set<string> {
  const classes = new Set(ATTENTION.flatMap((c) => classesOf(FORWARD, fixtureOf(c.fixture))));
  const asForward = ATTENTION.map((c) => ({ ...c, fn: FORWARD }));
  for (const list of reach(asForward, (c) => fixtureOf(c.fixture)).values()) for (const id of list) classes.add(id);
  return classes;
}

const unreached = (classes: Set<string>) => DOMAIN.filter((c) => c.fn === FORWARD && !classes.has(c.id)).map((c) => c.id);

describe("the attention backward's cases reach every class of the forward pass's domain", () => {
  it('the stored cases', () => {
    expect(unreached(reached((key) => loadFixture(key)))).toEqual([]);
  });

  it('the cases drawn for 4 other names', () => {
    const variants = loadVariants('gradients domain');
    for (const name of ['ada', 'grace', 'alan', '']) {
      const drawn = variants.draw(name, GRADIENT_CASES);
      expect(unreached(reached((key) => drawn.get(key) ?? loadFixture(key))), name).toEqual([]);
    }
  });
});

describe("softmaxBackward's cases", () => {
  it('reach 1- to 4-D inputs, dims from the end and the start, float64, masked zeros, and a repeated call', () => {
    const fixtures = SOFTMAX.map((c) => loadFixture(c.fixture));
    expect([...new Set(fixtures.map((f) => f.inputs.y.ndim))].sort()).toEqual([1, 2, 3, 4]);
    expect(fixtures.some((f) => f.params.dim < 0 && f.params.dim !== -1)).toBe(true);
    expect(fixtures.some((f) => f.params.dim >= 0 && f.params.dim !== f.inputs.y.ndim - 1)).toBe(true);
    expect(fixtures.some((f) => f.inputs.y.dtype === 'float64')).toBe(true);
    expect(fixtures.some((f) => Array.prototype.includes.call(f.inputs.y.data, 0))).toBe(true);
    const repeated = SOFTMAX.map((c) => ({ ...c, fn: 'softmax' }));
    const classes = [...reach(repeated, (c) => ({ ...loadFixture(c.fixture), inputs: { x: loadFixture(c.fixture).inputs.y } })).values()].flat();
    expect(classes).toContain('softmax: repeated');
  });
});
