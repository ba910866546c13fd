import { describe, expect, it } from 'vitest';
import { expectedShapes } from '../assignment/call';
import type { GradedCase } from '../assignment/cases';
import type { FunctionSpec } from '../assignment/functions';
import { readReturn } from '../assignment/returns';
import { checkMaskedRowsZero } from '../compare';
import { ResultError } from '../errors';
import type { LoadedFixture } from '../model/fixtures';
import { Tensor } from '../tensor';
import { evaluateCase } from './checks';
import { judgeValue } from './verdict';

/**
 * A function returning a row-normalised x and its normalisers, the second part left out when the
 * call sets `keep` to false: the shape of a tuple one of whose parts a flag leaves out.
 */
const SPEC: FunctionSpec = {
  id: 'normalised',
  export: 'normalised',
  args: [{ name: 'x', input: 'x' }, { name: 'options', optional: true, object: { keep: { param: 'keep', as: 'boolean' }, mask: { input: 'mask' } } }],
  returns: {
    tuple: true,
    parts: [
      { name: 'rows', kind: 'float', shape: { lead: { inputs: ['x'], keep: 0 }, dims: [] } },
      { name: 'norms', kind: 'float', shape: { lead: { inputs: ['x'], keep: 1 }, dims: [1] }, omittedWhenFalse: 'keep' },
    ],
  },
  rows: { part: 'rows', mask: 'mask' },
  signature: '`normalised(x, { keep? })`',
  summary: 'x over its rows\' norms, and the norms',
  short: 'normalised',
};

const CASE: GradedCase = {
  name: 'test_normalised', fn: 'normalised', points: 1, fixture: 'normalised', hidden: false,
  tolerance: { atol: 1e-6, rtol: 1e-4 }, checks: [], what: 'x [2, 2] over its rows\' norms',
};

const x = new Tensor(Float64Array.from([3, 4, 6, 8]), [2, 2]);
const rows = new Tensor(Float64Array.from([0.6, 0.8, 0.6, 0.8]), [2, 2]);
const norms = new Tensor(Float64Array.from([5, 10]), [2, 1]);

function fixture(params: Record<string, number>, bounds: Record<string, Tensor> = {}): LoadedFixture {
  const parts: Record<string, Tensor> = params.keep === 0 ? { rows } : { rows, norms };
  return { key: 'normalised', params, inputs: { x }, expected: rows, parts, probabilities: () => undefined, mistakes: () => new Map(), bound: (part) => bounds[part ?? ''] };
}

describe('a tuple part a flag leaves out (PartSpec.omittedWhenFalse)', () => {
  it('asked for by default and when the flag is true; left out when it is false', () => {
    expect(readReturn(SPEC, { rows, norms }, undefined, {}).map((p) => p.name)).toEqual(['rows', 'norms']);
    expect(readReturn(SPEC, { rows, norms }, undefined, { keep: 1 }).map((p) => p.name)).toEqual(['rows', 'norms']);
    for (const left of [{ rows }, { rows, norms: undefined }, { rows, norms: null }]) {
      expect(readReturn(SPEC, left, undefined, { keep: 0 }).map((p) => p.name)).toEqual(['rows']);
    }
    expect(expectedShapes(SPEC, { params: { keep: 0 }, inputs: { x } })).toEqual([[2, 2]]);
    expect(expectedShapes(SPEC, { params: {}, inputs: { x } })).toEqual([[2, 2], [2, 1]]);
  });

  it('returned when the call left it out, or missing when it asked: refused, saying which', () => {
    expect(() => readReturn(SPEC, { rows, norms }, undefined, { keep: 0 })).toThrow(new ResultError('normalised returned norms when the call set keep to false; leave norms out then (or undefined), return { rows }'));
    expect(() => readReturn(SPEC, { rows }, undefined, { keep: 1 })).toThrow(new ResultError('normalised returned an object without norms; return { rows, norms }'));
  });

  it('judged on the parts the call returns: nothing expected of the one left out', () => {
    expect(judgeValue({ functions: [SPEC] }, CASE, [{ name: 'rows', value: rows }], fixture({ keep: 0 })).status).toBe('passed');
    const off = judgeValue({ functions: [SPEC] }, CASE, [{ name: 'rows', value: rows }, { name: 'norms', value: new Tensor(Float64Array.from([5, 11]), [2, 1]) }], fixture({}));
    expect(off.reason).toMatch(/^norms: 1 of 2 values out of tolerance/);
  });
});

describe("a tuple's part is widened by its own float32 bound (bound_<part>.npy)", () => {
  const near = new Tensor(Float64Array.from([5, 10.01]), [2, 1]);
  const returned = [{ name: 'rows', value: rows }, { name: 'norms', value: near }];

  it('within its part\'s bound passes; beyond it fails, naming the bound; another part\'s bound widens nothing here', () => {
    const wide = { norms: new Tensor(Float64Array.from([0, 0.02]), [2, 1]) };
    expect(judgeValue({ functions: [SPEC] }, CASE, returned, fixture({}, wide)).status).toBe('passed');
    const narrow = { norms: new Tensor(Float64Array.from([0, 0.005]), [2, 1]) };
    expect(judgeValue({ functions: [SPEC] }, CASE, returned, fixture({}, narrow)).reason).toMatch(/^norms: 1 of 2 values out of tolerance .*beyond the float32 error bound of this case \(≤ 0\.005 here\)/);
    const elsewhere = { rows: new Tensor(Float64Array.from([1, 1, 1, 1]), [2, 2]), '': new Tensor(Float64Array.from([1, 1]), [2, 1]) };
    expect(judgeValue({ functions: [SPEC] }, CASE, returned, fixture({}, elsewhere)).status).toBe('failed');
  });
});

describe('masked_rows_zero: rows whose mask allows no key are exactly zeros, in every float part', () => {
  const t = (data: number[], shape: number[]) => new Tensor(Float64Array.from(data), shape);
  // Query 1 of 3 has every key masked; the mask broadcasts over the batch of 2.
  const mask = new Tensor(Uint8Array.from([1, 0, 0, 0, 1, 1]), [3, 2]);

  it('passes zeros, and names the first row that is not, wherever the last dim is keys or features', () => {
    const values = t([1, 2, 3, 0, 0, 0, 4, 5, 6, 7, 8, 9, 0, 0, 0, 1, 1, 1], [2, 3, 3]);
    expect(checkMaskedRowsZero(values, mask).passed).toBe(true);
    const leaked = t([1, 2, 3, 0, 0, 0, 4, 5, 6, 7, 8, 9, 0, 1e-9, 0, 1, 1, 1], [2, 3, 3]);
    expect(checkMaskedRowsZero(leaked, mask).message).toBe('1 row whose keys are all masked is not all zeros; first: [1, 1, 1] is 1.000e-9. A query with no key to attend to must output zeros (set its NaN weights to 0 after the softmax).');
    const keyDimOne = new Tensor(Uint8Array.from([1, 0, 1]), [3, 1]);
    expect(checkMaskedRowsZero(t([1, 1, 0.5, 0, 2, 2], [3, 2]), keyDimOne).message).toMatch(/^1 row .*first: \[1, 0\] is 0\.5/);
  });

  it('a case declaring it checks every float part the call returns, each failure named by its part', () => {
    const checked = { ...CASE, checks: ['masked_rows_zero' as const] };
    const masked = new Tensor(Uint8Array.from([1, 0]), [2, 1]);
    const evidence = { expected: { rows: t([0.6, 0.8, 0, 0], [2, 2]), norms: t([5, 0], [2, 1]) }, inputs: { x, mask: masked }, params: {} };
    const outputs = (second: number) => new Map([['rows', t([0.6, 0.8, 0, 0], [2, 2])], ['norms', t([5, second], [2, 1])]]);
    expect(evaluateCase(SPEC, checked, outputs(0), evidence).passed).toBe(true);
    const verdict = evaluateCase(SPEC, { ...checked, tolerance: { atol: 1e-3, rtol: 0 } }, outputs(1e-4), evidence);
    expect(verdict.message).toMatch(/^norms: 1 row whose keys are all masked is not all zeros; first: \[1, 0\] is 0\.0001\. /);
  });
});
