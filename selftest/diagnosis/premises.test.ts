import { describe, expect, it } from 'vitest';
import type { Submission } from '../../adapters';
import { ASSIGNMENT } from '../../tests/assignment';
import { probeOf } from '../../lib/suite/submission';
import * as reference from '../../reference';
import { Tensor } from '../../lib/tensor';
import { reversed } from '../../tests/diagnosis/attentionCase';
import { changedInputs, snapshotInputs } from '../../lib/model/inputsChanged';
import { callPremises, CALLS, Premises } from '../../tests/diagnosis/premises';
import type { ProbeContext } from '../../lib/diagnosis/probe';

const x = Tensor.randn([2, 3, 4], 1, 'float64');
const a = { params: { dim: -1 }, inputs: { x } };
const b = { params: { dim: -1 }, inputs: { x: x.mul(2) } };
const ids = { stateKept: 'state_kept', inputsChanged: 'inputs_changed' };

/** The premises about calls of `softmax` as written by `impl`. */
function premisesOf(softmax: Submission['softmax']): Premises {
  const context: ProbeContext = { probe: probeOf(ASSIGNMENT, { softmax }, 'test.ts'), failures: async () => [] };
  return new Premises(callPremises(context, 'softmax', a, b, ids));
}

describe('the premises about calls', () => {
  it('hold for code that keeps nothing and changes nothing', async () => {
    expect(await premisesOf(reference.softmax).broken(CALLS)).toBeUndefined();
  });

  it('a buffer kept and added to: the same call twice gives another output, and where', async () => {
    let kept = new Float64Array(0);
    const finding = await premisesOf((t) => {
      const out = reference.softmax(t, -1);
      if (kept.length !== out.size) kept = new Float64Array(out.size);
      for (let i = 0; i < kept.length; i++) kept[i] += out.data[i];
      return new Tensor(kept.slice(), out.shape);
    }).broken(CALLS);
    expect(finding?.id).toBe('state_kept');
    expect(finding?.evidence).toMatch(/^Called twice in a row with the same inputs, it gave different outputs, first at \[0, 0, 0\] \(/);
  });

  it('an answer kept from the call before: A, A agree, A after B does not', async () => {
    let last: Tensor | undefined;
    const finding = await premisesOf((t) => {
      const answer = last && last.data[0] !== t.data[0] ? reference.softmax(last, -1) : reference.softmax(t, -1);
      last = t;
      return answer;
    }).broken(CALLS);
    expect(finding?.id).toBe('state_kept');
    expect(finding?.evidence).toMatch(/^Called with the same inputs before and after a call with other inputs/);
  });

  it('inputs changed in place come first, named as the student names them, with the first index', async () => {
    const finding = await premisesOf((t) => {
      (t.data as Float64Array)[5] = 0;
      return reference.softmax(t, -1);
    }).broken(CALLS);
    expect(finding).toEqual({ id: 'inputs_changed', evidence: 'After a call, these inputs are not what they were given: x, first at [0, 1, 1].' });
  });

  it('a probe gets copies: what the function changes never reaches the caller\'s tensors', async () => {
    const before = snapshotInputs(a.inputs);
    await premisesOf((t) => {
      (t.data as Float64Array).fill(0);
      return reference.softmax(t, -1);
    }).broken(CALLS);
    expect(changedInputs(before, a.inputs)).toEqual([]);
  });
});

describe('rearranged inputs keep their shape and dtype', () => {
  it('reverses the dims asked for, and leaves a broadcast dim of size 1 as it is', () => {
    const t = new Tensor(Float32Array.from({ length: 12 }, (_, i) => i), [2, 1, 3, 2]);
    const r = reversed(t, [0, 1, 2]);
    expect(r.shape).toEqual([2, 1, 3, 2]);
    expect(r.data).toBeInstanceOf(Float32Array);
    expect(Array.from(r.data)).toEqual([10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1]);
    const mask = new Tensor(Uint8Array.of(1, 0, 0, 1), [1, 2, 2]);
    expect(Array.from(reversed(mask, [0]).data)).toEqual([1, 0, 0, 1]);
  });
});
