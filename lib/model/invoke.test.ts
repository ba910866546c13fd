import { describe, expect, it } from 'vitest';
import { Tensor } from '../tensor';
import { GRADED_CASES } from '../../tests/cases';
import { loadFixture } from './fixtures';
import { FUNCTIONS } from '../../adapters/functions';
import { expectedShapes } from '../assignment/call';
import { specOf } from '../assignment/functions';
import { judgedByShape } from '../assignment/returns';
import { changedInputs, copyInputs, runOrder } from './invoke';

const expectedShape = (fn: string, call: Parameters<typeof expectedShapes>[1]) => expectedShapes(specOf(FUNCTIONS, fn), call)[0];

describe('expectedShape', () => {
  it("is every case's expected shape, from its inputs alone", () => {
    for (const c of GRADED_CASES) {
      const fixture = loadFixture(c.fixture);
      expect(expectedShape(c.fn, fixture), c.name).toEqual([...fixture.expected.shape]);
    }
  });

  it('broadcasts the leading dims of Q, K, V and the mask; promises nothing for inputs that do not fit', () => {
    const t = (...shape: number[]) => Tensor.zeros(shape);
    expect(expectedShape('scaled_dot_product_attention', { params: {}, inputs: { q: t(1, 5, 8), k: t(3, 7, 8), v: t(3, 7, 4), mask: t(2, 1, 5, 7) } })).toEqual([2, 3, 5, 4]);
    expect(expectedShape('scaled_dot_product_attention', { params: {}, inputs: { q: t(2, 5, 8), k: t(3, 7, 8), v: t(3, 7, 4) } })).toBeUndefined();
    expect(expectedShape('causal_mask', { params: { seqLen: 1.5 }, inputs: {} })).toBeUndefined();
  });
});

describe('judgedByShape', () => {
  it('only a shape that is not the promised one and holds more elements', () => {
    expect(judgedByShape([200_000_000], [4, 12, 64])).toBe(true);
    expect(judgedByShape([4, 12, 65], [4, 12, 64])).toBe(true);
    expect(judgedByShape([4, 12, 64], [4, 12, 64])).toBe(false);
    expect(judgedByShape([48, 64], [4, 12, 64])).toBe(false); // as many values: read, for the diagnosis
    expect(judgedByShape([4, 12], [4, 12, 64])).toBe(false);
    expect(judgedByShape([1e9], undefined)).toBe(false);
  });
});

describe('copies and changes', () => {
  it('a copy shares no storage; what a call changed is named by input, with the first index it changed', () => {
    const inputs = { params: { dim: -1 }, inputs: { x: new Tensor(Float32Array.from([1, 2, 3]), [3]), mask: new Tensor(Uint8Array.from([1, 0, 1]), [3]) } };
    const given = copyInputs(inputs);
    expect(changedInputs(inputs, given)).toEqual([]);
    (given.inputs.mask.data as Uint8Array)[1] = 1;
    expect(inputs.inputs.mask.data[1]).toBe(0);
    expect(changedInputs(inputs, given)).toEqual([{ name: 'mask', at: 1 }]);
    (given.inputs as Record<string, unknown>).x = { shape: [3], data: 'gone' };
    expect(changedInputs(inputs, given)).toEqual([{ name: 'x', at: 0 }, { name: 'mask', at: 1 }]);
  });

  it('NaN in place of NaN is no change; -0 in place of 0 is', () => {
    const inputs = { params: {}, inputs: { x: new Tensor(Float64Array.from([NaN, 0]), [2]) } };
    const given = copyInputs(inputs);
    expect(changedInputs(inputs, given)).toEqual([]);
    given.inputs.x.data[1] = -0;
    expect(changedInputs(inputs, given)).toEqual([{ name: 'x', at: 1 }]);
  });
});

describe('runOrder', () => {
  it("is the table's order", () => {
    expect(runOrder(GRADED_CASES).map((c) => c.name)).toEqual(GRADED_CASES.map((c) => c.name));
  });
});
