import { describe, expect, it } from 'vitest';
import type { CaseInputs } from '../assignment/call';
import type { GradedCase } from '../assignment/cases';
import type { LoadedFixture } from '../model/fixtures';
import { Tensor } from '../tensor';
import { ANSWER_CHANGES, explain, replayDiffers, type Outcome } from './explain';
import type { ProbeAnswer, ProbeContext } from './probe';

/**
 * The premise check and the search for the earlier call that left state, on submissions simulated
 * here: `make()` gives a fresh instance (a function of one input `x` that may keep state), and the
 * context replays the graded calls as both paths do (lib/grading/diagnoseInChild.ts,
 * lib/suite/gradedSuite.ts). The catalogue's state-keeping entries hold both paths to the same words
 * (selftest/grader/verdicts.test.ts).
 */
type Instance = (x: number, n: number) => number[];

const vector = (values: number[]) => new Tensor(Float64Array.from(values), [values.length]);
const gradedCase = (name: string, fn = 'f'): GradedCase =>
  ({ name, fn, points: 1, fixture: name, hidden: false, tolerance: { atol: 1e-6, rtol: 0 }, checks: [], what: name }) as unknown as GradedCase;
const inputsOf = (x: number, n: number): CaseInputs => ({ params: {}, inputs: { x: vector(new Array(n).fill(x)) } });
const fixtureOf = (name: string, x: number, n: number): LoadedFixture =>
  ({ key: name, params: {}, inputs: inputsOf(x, n).inputs, expected: vector(new Array(n).fill(2 * x)), parts: {}, probabilities: () => undefined, mistakes: () => new Map(), bound: () => undefined }) as unknown as LoadedFixture;

const answer = (out: number[]): ProbeAnswer => ({ kind: 'value', output: vector(out) });
const call = (instance: Instance, inputs: CaseInputs) => {
  const x = inputs.inputs.x;
  return instance(x.data[0], x.shape[0]);
};

/** The earlier graded calls of the run: [name, x, n], in the order made. */
type Run = readonly (readonly [string, number, number])[];

/** What the graded run gave the last call, a context that replays as the paths do, and how many fresh instances it started. */
function graded(make: () => Instance, run: Run, failing: readonly [string, number, number]) {
  const instance = make();
  for (const [, x, n] of run) instance(x, n);
  const output = instance(failing[1], failing[2]);
  const probes = make();
  let fresh = 0;
  const context: ProbeContext = {
    probe: async (_fn, inputs) => answer(call(probes, inputs)),
    failures: async () => [],
    callsBefore: () => run.map(([name, x, n]) => ({ name, fn: 'f', inputs: () => inputsOf(x, n) })),
    inFreshInstance: async (calls) => {
      fresh++;
      const own = make();
      let last: ProbeAnswer = { kind: 'none', why: 'no call was made' };
      for (const c of calls) last = answer(call(own, c.inputs));
      return last;
    },
  };
  const outcome: Outcome = { kind: 'output', output: vector(output) };
  return { context, outcome, fixture: fixtureOf(failing[0], failing[1], failing[2]), fresh: () => fresh };
}

/** Doubles x, but keeps the first factor it met for each length: a cache keyed on part of the inputs. */
const cachedByLength = (): Instance => {
  const factor = new Map<number, number>();
  return (x, n) => {
    if (!factor.has(n)) factor.set(n, x === 0 ? 2 : 2 + x / 10);
    return new Array(n).fill(x * factor.get(n)!);
  };
};

/** Adds the sum of every earlier call's first input: state from every call, which no single call replays. */
const runningSum = (): Instance => {
  let sum = 0;
  return (x, n) => {
    const out = new Array(n).fill(2 * x + sum);
    sum += x;
    return out;
  };
};

describe('a failing call that answers otherwise when made again', () => {
  it('names the earlier call that, made first in a fresh instance, gives the test its answer again', async () => {
    for (const [run, failing, named] of [
      [[['t_a', 1, 3], ['t_b', 5, 4], ['t_c', 2, 5]], ['t_d', 3, 4], 't_b'],
      [[['t_a', 7, 2], ['t_b', 1, 3]], ['t_c', 4, 2], 't_a'],
      [[['t_a', 1, 2], ['t_b', 2, 2], ['t_c', 3, 2], ['t_d', 4, 3]], ['t_e', 5, 2], 't_a'],
    ] as const) {
      const { context, outcome, fixture } = graded(cachedByLength, run, failing);
      const found = await replayDiffers(gradedCase(failing[0]), fixture, outcome, context);
      expect(found?.mistake).toBe(ANSWER_CHANGES.id);
      expect(found?.message).toContain(`right after a call with the inputs of ${named}, it gives the test's answer again`);
      expect(found?.message).toContain('it keeps state from that call');
    }
  });

  it('names no call when none alone gives the test its answer, and says what it measured', async () => {
    const { context, outcome, fixture } = graded(runningSum, [['t_a', 1, 2], ['t_b', 2, 2], ['t_c', 3, 2]], ['t_d', 4, 2]);
    const found = await replayDiffers(gradedCase('t_d'), fixture, outcome, context);
    expect(found?.message).toMatch(/^Called again with this test's inputs, your function gives another answer \(first at \[0\]: 14 in the test, \d+ when called again\): it keeps state between calls/);
    expect(found?.message).not.toContain('right after a call');
  });

  it('names no call when the failing call alone in a fresh instance already gives the test its answer (the control)', async () => {
    // The probes' own instance has met calls the graded run had not: the replay differs there, yet a fresh instance agrees with the test.
    // t_a leaves nothing (it adds 0 to the sum), so made before t_b it "gives the test's answer" too, and must not be named.
    const { context, outcome, fixture } = graded(runningSum, [['t_a', 0, 2]], ['t_b', 4, 2]);
    await context.probe('f', inputsOf(9, 2));
    const found = await replayDiffers(gradedCase('t_b'), fixture, outcome, context);
    expect(found?.mistake).toBe(ANSWER_CHANGES.id);
    expect(found?.message).not.toContain('right after a call');
  });

  it("names no call whose answer lacks the failing part: only the test's own values, to the bit, count", async () => {
    const weights = (w: number) => ({ kind: 'value' as const, output: vector([1]), parts: { output: vector([1]), weights: vector([w, w]) } });
    const context: ProbeContext = {
      probe: async () => weights(2),
      failures: async () => [],
      callsBefore: () => [{ name: 't_a', fn: 'f', inputs: () => inputsOf(1, 2) }],
      // Alone, the failing call answers otherwise (the control holds); after t_a, it returns no weights at all.
      inFreshInstance: async (calls) => (calls.length === 1 ? weights(3) : { kind: 'value', output: vector([1]) }),
    };
    const outcome: Outcome = { kind: 'output', output: vector([5, 5]), part: 'weights' };
    const found = await replayDiffers(gradedCase('t_b'), fixtureOf('t_b', 1, 2), outcome, context);
    expect(found?.mistake).toBe(ANSWER_CHANGES.id);
    expect(found?.message).not.toContain('right after a call');
  });

  it('says nothing of state when the call answers the same, and starts no fresh instance', async () => {
    const { context, outcome, fixture, fresh } = graded(() => (x, n) => new Array(n).fill(3 * x), [['t_a', 1, 2]], ['t_b', 2, 2]);
    expect(await replayDiffers(gradedCase('t_b'), fixture, outcome, context)).toBeUndefined();
    expect((await explain(undefined, gradedCase('t_b'), fixture, outcome, context)).diagnosis?.mistake).not.toBe(ANSWER_CHANGES.id);
    expect(fresh()).toBe(0);
  });

  it('starts at most 5 fresh instances per failing test and 16 per run of the diagnosis', async () => {
    const run: Run = Array.from({ length: 12 }, (_, i) => [`t_${i}`, i + 1, 2] as const);
    const { context, outcome, fixture, fresh } = graded(runningSum, run, ['t_last', 50, 2]);
    await replayDiffers(gradedCase('t_last'), fixture, outcome, context);
    expect(fresh()).toBeLessThanOrEqual(5);
    for (let i = 0; i < 6; i++) await replayDiffers(gradedCase('t_last'), fixture, outcome, context);
    expect(fresh()).toBe(16);
  });
});
