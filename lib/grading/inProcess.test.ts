import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Tensor } from '../tensor';
import { FunctionLedger } from './faults';
import { WALL_FACTOR } from '../sandbox/childClock';
import * as reference from '../../reference';
import { FUNCTIONS } from '../../adapters/functions';
import { ASSIGNMENT } from '../../tests/assignment';
import { visibleCases } from '../../tests/cases';
import type { Probe } from '../diagnosis/probe';
import { InProcessSession, inProcessContext } from './inProcess';

/** Spins until `ms` of wall time have passed: however loaded the machine, at least that long. */
function spin(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

/** Spins until this thread has spent `ms` of CPU: what a call is charged, however loaded the machine. */
function spinCpu(ms: number): void {
  const spent = () => {
    const { user, system } = (process as unknown as { threadCpuUsage(): NodeJS.CpuUsage }).threadCpuUsage();
    return (user + system) / 1000;
  };
  const until = spent() + ms;
  while (spent() < until);
}

const x = () => ({ params: { dim: -1 }, inputs: { x: new Tensor(new Float64Array([0, 0]), [2]) } });
const LIMIT_MS = 300;

/** A softmax whose answer is slow to compute and then slow to read (a getter), `ms` each. */
function slowTwice(ms: number, wait = spin) {
  return {
    softmax(input: Tensor): unknown {
      wait(ms);
      return {
        shape: input.shape,
        get data() {
          wait(ms);
          return new Float64Array([0.5, 0.5]);
        },
      };
    },
  };
}

describe('a call in this process is one request, as the grader times its child', () => {
  it('reading the return counts against the same limit as the call: two thirds of it each is a timeout', () => {
    const outcome = new InProcessSession(slowTwice((2 * LIMIT_MS) / 3), FUNCTIONS, 'slow/index.ts', { timeoutMs: LIMIT_MS }).call('softmax', x());
    expect(outcome.kind).toBe('timeout');
  });

  it('a getter that never returns is a timeout, not an error of the student', () => {
    const impl = {
      softmax: () => ({
        shape: [2],
        get data(): never {
          for (;;);
        },
      }),
    };
    const outcome = new InProcessSession(impl, FUNCTIONS, 'hang/index.ts', { timeoutMs: LIMIT_MS }).call('softmax', x());
    expect(outcome).toMatchObject({ kind: 'timeout', budget: false });
  });

  it('the function is charged for the call and the reading of its return', () => {
    const ledger = new FunctionLedger(60_000, ['softmax']);
    const outcome = new InProcessSession(slowTwice(40, spinCpu), FUNCTIONS, 'slow/index.ts', { ledger, timeoutMs: 10_000 }).call('softmax', x());
    expect(outcome.kind).toBe('value');
    expect(ledger.shareMs - ledger.left('softmax')).toBeGreaterThanOrEqual(80);
  });

  it('a call near the end of its share is limited to what is left, a fraction of a ms as often as not, in a form node:vm takes', () => {
    const quick = { softmax: (t: Tensor) => new Tensor(new Float64Array([0.5, 0.5]), t.shape) };
    fc.assert(fc.property(fc.double({ min: 1e-6, max: 3000, noNaN: true }), (left) => {
      const ledger = new FunctionLedger(60_000, ['softmax']);
      ledger.charge('softmax', 60_000 - left);
      const outcome = new InProcessSession(quick, FUNCTIONS, 'quick/index.ts', { ledger: ledger, timeoutMs: 10_000 }).call('softmax', x());
      // Answered, or stopped at its share's end: never a RangeError of node:vm's.
      expect(outcome.kind === 'value' || (outcome.kind === 'timeout' && outcome.budget), JSON.stringify(outcome)).toBe(true);
    }), { numRuns: 40 });
  });

  it("near its share's end a call is held to what is left of the share as the grader holds it: in charged time, not wall time", () => {
    const answer = (t: Tensor) => new Tensor(new Float64Array([0.5, 0.5]), t.shape);
    const leaving = (left: number) => {
      const ledger = new FunctionLedger(60_000, ['softmax']);
      ledger.charge('softmax', 60_000 - left);
      return ledger;
    };
    // 500 ms asleep is charged 125 ms, within a share of 300: answered, as in the grader.
    const sleeps = { softmax: (t: Tensor) => (Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500), answer(t)) };
    expect(new InProcessSession(sleeps, FUNCTIONS, 'sleeps/index.ts', { ledger: leaving(300), timeoutMs: 10_000 }).call('softmax', x()).kind).toBe('value');
    // 400 ms of CPU is past a share of 200, however long the machine took to give it: the share's end.
    const spins = { softmax: (t: Tensor) => (spinCpu(400), answer(t)) };
    expect(new InProcessSession(spins, FUNCTIONS, 'spins/index.ts', { ledger: leaving(200), timeoutMs: 10_000 }).call('softmax', x())).toMatchObject({ kind: 'timeout', budget: true });
  });

  it('a call is charged as the grader charges its child: a sleep a quarter of its wall time, not all of it', () => {
    const ledger = new FunctionLedger(60_000, ['softmax']);
    const sleeps = { softmax: (t: Tensor) => (Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400), new Tensor(new Float64Array([0.5, 0.5]), t.shape)) };
    expect(new InProcessSession(sleeps, FUNCTIONS, 'sleeps/index.ts', { ledger: ledger, timeoutMs: 10_000 }).call('softmax', x()).kind).toBe('value');
    const charged = ledger.shareMs - ledger.left('softmax');
    // Its wait for a CPU after the sleep, however long on a loaded machine, is the machine's.
    expect(charged).toBeGreaterThanOrEqual(400 / WALL_FACTOR - 1);
    // Charged by the wall clock, it would be 400 at least.
    expect(charged).toBeLessThan(400);
  });

  it('what the call threw, what its return could not give, and a value, as before', () => {
    // npm test's own limit: node:vm's watchdog keeps wall time, which a loaded machine stretches past 300 ms for a call that takes none.
    const session = (softmax: (t: Tensor) => unknown) => new InProcessSession({ softmax }, FUNCTIONS, 'x/index.ts');
    expect(session(() => { throw new RangeError('no'); }).call('softmax', x())).toMatchObject({ kind: 'threw', unreadable: false, error: { name: 'RangeError' } });
    expect(session(() => 'text').call('softmax', x())).toMatchObject({ kind: 'threw', unreadable: true });
    const value = session((t) => new Tensor(new Float64Array([0.5, 0.5]), t.shape)).call('softmax', x());
    expect(value.kind).toBe('value');
  });

  it('what it threw is described under the same limit: an Error whose message never returns is a timeout', () => {
    const err = new Error('hidden');
    Object.defineProperty(err, 'message', { get(): never { for (;;); } });
    const outcome = new InProcessSession({ softmax: () => { throw err; } }, FUNCTIONS, 'x/index.ts', { timeoutMs: LIMIT_MS }).call('softmax', x());
    expect(outcome.kind).toBe('timeout');
  });

  it('what it threw comes back described, never as the thrown value, whose getters nothing may read after the call', () => {
    const err = new RangeError('first');
    const outcome = new InProcessSession({ softmax: () => { throw err; } }, FUNCTIONS, 'x/index.ts', { timeoutMs: LIMIT_MS }).call('softmax', x());
    expect(outcome).toMatchObject({ kind: 'threw', error: { name: 'RangeError', message: 'first' } });
    if (outcome.kind !== 'threw') return;
    expect(outcome.error).not.toBe(err);
    expect(Object.values(outcome.error).every((v) => typeof v === 'string' || typeof v === 'boolean')).toBe(true);
  });
});

describe("the diagnosis's own run of the attention tests (npm test -- -t multihead)", () => {
  const probeless: Probe = async () => ({ kind: 'none', why: 'no probes here' });
  const attentionCases = visibleCases('scaled_dot_product_attention').map((c) => c.name);
  /** `limitMs`: the grader's per-test limit unless a test needs a hang to end sooner. */
  const failuresOf = (scaledDotProductAttention: (...args: unknown[]) => unknown, limitMs?: number) =>
    inProcessContext(probeless, new InProcessSession({ scaledDotProductAttention }, FUNCTIONS, 'x/index.ts', { timeoutMs: limitMs }), ASSIGNMENT).failures('scaled_dot_product_attention');

  it('the reference fails none of them', async () => {
    expect(await failuresOf(reference.scaledDotProductAttention as (...args: unknown[]) => unknown)).toEqual([]);
  });

  it("an Error whose name never returns: one time limit, then every test failed, as in the grader after a hang", async () => {
    const err = new Error('hidden');
    let calls = 0;
    Object.defineProperty(err, 'name', { get(): never { for (;;); } });
    expect(await failuresOf(() => { calls++; throw err; }, LIMIT_MS)).toEqual(attentionCases);
    expect(calls).toBe(1);
  });

  it('process.exit: every test failed, and this process goes on', async () => {
    expect(await failuresOf(() => process.exit(3))).toEqual(attentionCases);
    expect(process.exitCode ?? 0).toBe(0);
  });
});
