import { describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../adapters/functions';
import type { ChildSession, SessionOutcome } from '../sandbox/session';
import { Tensor } from '../tensor';
import { childProbe } from './diagnoseInChild';

/** A session that answers every call from a script, counting the calls that reach the child. */
function scripted(answer: (call: number) => SessionOutcome): { session: ChildSession; calls: () => number } {
  let calls = 0;
  const session = { call: async () => answer(++calls), takeOutput: () => '', functions: FUNCTIONS } as unknown as ChildSession;
  return { session, calls: () => calls };
}

const inputs = (fill: number) => ({ params: {}, inputs: { q: Tensor.full([2, 3], fill), k: Tensor.full([2, 3], 1), v: Tensor.eye(2) } });
const value: SessionOutcome = { kind: 'value', value: [{ name: 'scaled_dot_product_attention', value: { shape: [2, 2], data: new Float64Array(4) } }], output: '', changed: [], flooded: false };

describe('childProbe', () => {
  it('asks the child once per call and inputs, across the diagnosis and the heatmaps of one session', async () => {
    const { session, calls } = scripted(() => value);
    const diagnosis = childProbe(session);
    const heatmaps = childProbe(session);
    await diagnosis('scaled_dot_product_attention', inputs(0.5));
    await diagnosis('scaled_dot_product_attention', inputs(0.5));
    expect(await heatmaps('scaled_dot_product_attention', inputs(0.5))).toMatchObject({ kind: 'value' });
    expect(calls()).toBe(1);
    await heatmaps('scaled_dot_product_attention', inputs(0.25)); // other data: asked
    await heatmaps('softmax', inputs(0.5)); // another function: asked
    expect(calls()).toBe(3);
    await childProbe(scripted(() => value).session)('scaled_dot_product_attention', inputs(0.5));
    expect(calls()).toBe(3); // another session (submission) keeps its own answers
  });

  it('asks again when a premise needs a second answer, and keeps the first as the evidence', async () => {
    const { session, calls } = scripted((n) => ({ kind: 'value', value: [{ name: 'scaled_dot_product_attention', value: { shape: [1], data: Float64Array.of(n) } }], output: '', flooded: false, changed: n === 2 ? [{ name: 'q', at: 0 }] : [] }));
    const probe = childProbe(session);
    expect(await probe('scaled_dot_product_attention', inputs(1))).toMatchObject({ output: { data: Float64Array.of(1) } });
    expect(await probe('scaled_dot_product_attention', inputs(1), { again: true })).toMatchObject({ output: { data: Float64Array.of(2) }, changed: [{ name: 'q', at: 0 }] });
    expect(await probe('scaled_dot_product_attention', inputs(1))).toMatchObject({ output: { data: Float64Array.of(1) } });
    expect(calls()).toBe(2);
  });

  it('after a hang gives no answer to new calls without asking, but still the answers it has', async () => {
    const { session, calls } = scripted((n) => (n === 2 ? { kind: 'timeout' } : value));
    const probe = childProbe(session);
    await probe('scaled_dot_product_attention', inputs(1));
    expect(await probe('scaled_dot_product_attention', inputs(2))).toEqual({ kind: 'none', why: 'the function did not finish within the time limit' });
    expect(await probe('scaled_dot_product_attention', inputs(3))).toMatchObject({ kind: 'none' });
    expect(await probe('scaled_dot_product_attention', inputs(1))).toMatchObject({ kind: 'value' });
    expect(calls()).toBe(2);
  });
});
