import { describe, expect, it } from 'vitest';
import { GRADED_CASES } from '../../tests/cases';
import { ASSIGNMENT } from '../../tests/assignment';
import { loadFixture, type LoadedFixture } from '../model/fixtures';
import { CaseEngine, phases, runPhases, type Backend } from './engine';
import { FunctionLedger } from './faults';
import type { SessionOutcome } from '../sandbox/session';

const fixtures = new Map<string, LoadedFixture>();
const fixtureOf = (c: { fixture: string }) => fixtures.get(c.fixture) ?? fixtures.set(c.fixture, loadFixture(c.fixture)).get(c.fixture)!;

/** A backend that answers every call with `answer` and writes down, in order, each call and each fresh instance. */
function recording(answer: () => SessionOutcome): { backend: Backend; events: string[]; fresh: () => void } {
  const events: string[] = [];
  let instance = 0;
  const backend: Backend = {
    call: async (fn, inputs) => {
      events.push(`${instance}:${fn}:${JSON.stringify(Object.keys(inputs.inputs))}`);
      return answer();
    },
    takeOutput: () => '',
    stackOf: () => '',
  };
  return { backend, events, fresh: () => void events.push(`fresh ${++instance}`) };
}

const engineFor = (cases: typeof GRADED_CASES) =>
  new CaseEngine(ASSIGNMENT, FunctionLedger.forCases(Infinity, cases, ASSIGNMENT.functions), { timeoutMs: 1000, memoryBytes: 2 ** 30 });

describe('runPhases', () => {
  it('runs the visible cases in the table order, then a fresh instance, then the hidden ones: one call per case', async () => {
    const { backend, events, fresh } = recording(() => ({ kind: 'threw', error: { name: 'Error', message: 'no', stack: '', notImplemented: false }, output: '', unreadable: false, changed: [], flooded: false }));
    const runs = await runPhases(engineFor(GRADED_CASES), GRADED_CASES, fixtureOf, backend, fresh);
    const [visible, hidden] = phases(GRADED_CASES);
    expect(visible.length).toBeGreaterThan(0);
    expect(hidden.length).toBeGreaterThan(0);
    expect([...runs.keys()]).toEqual([...visible, ...hidden].map((c) => c.name));
    // The fresh instance comes between the phases, never before the first: a child warmed up while the submission was transpiled is kept.
    expect(events.indexOf('fresh 1')).toBe(visible.length);
    expect(events.filter((e) => e.startsWith('fresh'))).toEqual(['fresh 1']);
    expect(events.filter((e) => !e.startsWith('fresh')).map((e) => e.split(':')[1])).toEqual([...visible, ...hidden].map((c) => c.fn));
  });

  it('with only visible cases there is no fresh instance', async () => {
    const visible = GRADED_CASES.filter((c) => !c.hidden);
    const { backend, events, fresh } = recording(() => ({ kind: 'crashed', how: 'exited with code 1' }));
    await runPhases(engineFor(visible), visible, fixtureOf, backend, fresh);
    expect(events.some((e) => e.startsWith('fresh'))).toBe(false);
  });

  it('a load failure found by the first call runs nothing more, and every later case names it', async () => {
    const { backend, events } = recording(() => ({ kind: 'load_failed', error: { name: 'SyntaxError', message: 'Unexpected token', stack: '', notImplemented: false }, duringLoad: true }));
    const engine = engineFor(GRADED_CASES);
    const runs = await runPhases(engine, GRADED_CASES, fixtureOf, backend, () => {});
    expect(events).toHaveLength(1);
    expect(engine.loadFailureVerdict?.reason).toMatch(/Unexpected token/);
    const [first, ...rest] = [...runs.values()].map((r) => r.verdict.reason);
    expect(first).toBe(engine.loadFailureVerdict?.reason);
    expect(new Set(rest).size).toBe(1);
    expect(rest[0]).toContain(GRADED_CASES[0].name);
  });
});
