import { describe, expect, it } from 'vitest';
import { loadFixture } from '../model/fixtures';
import type { SessionOutcome } from '../sandbox/session';
import type { PreparedSubmission } from '../sandbox/transpile';
import { ASSIGNMENT } from '../../tests/assignment';
import { visibleCases } from '../../tests/cases';
import { FunctionLedger } from './faults';
import { memoryWords, notRunAfterFault, thrownWords } from './hangWords';
import { fromOutcome, studentStack } from './verdict';

const graded = visibleCases('causal_mask')[0];
const fixture = loadFixture(graded.fixture);
const prepared = { load: { label: 'kim' }, lineMaps: {} } as unknown as PreparedSubmission;
const limitsOf = (memoryBytes: number) => ({ assignment: ASSIGNMENT, timeoutMs: 10_000, ledger: FunctionLedger.forCases(60_000, [graded], ASSIGNMENT.functions), memoryBytes });
const failed = (stack: string) => ({ name: 'RangeError', message: 'Array buffer allocation failed', stack, notImplemented: false });
const STACK = 'RangeError: Array buffer allocation failed\n    at new ArrayBuffer (<anonymous>)\n    at Object.causalMask (kim/index.ts:6:19)\n    at run (/srv/child/main.js:1:1)';

describe('a verdict at the memory cap', () => {
  const caps = [256 * 1024 ** 2, 1536 * 1024 ** 2, 2 * 1024 ** 3, 8 * 1024 ** 3];

  it('an allocation that failed: the cap and the first line of the student in its stack, crashed, no diagnosis', () => {
    for (const cap of caps) {
      const verdict = fromOutcome({ kind: 'threw', error: failed(STACK), output: '', unreadable: false, changed: [], flooded: false }, graded, fixture, limitsOf(cap), (error) => studentStack(error, prepared));
      expect(verdict).toMatchObject({ status: 'crashed', reason: memoryWords('causalMask', cap, 'kim/index.ts:6:19') });
      expect(verdict.evidence).toBeUndefined();
    }
    expect(memoryWords('causalMask', 2 * 1024 ** 3, 'kim/index.ts:6:19')).toBe(
      '`causalMask` reached the memory limit of 2 GiB at kim/index.ts:6:19: does it allocate far more than it needs, or without end?',
    );
  });

  it('a process that died of it: the cap, how it ended in the details, the same status', () => {
    const died: SessionOutcome = { kind: 'crashed', how: 'was killed by SIGABRT: memory limit exceeded' };
    for (const cap of caps) {
      expect(fromOutcome(died, graded, fixture, limitsOf(cap), (error) => studentStack(error, prepared))).toEqual({ status: 'crashed', reason: memoryWords('causalMask', cap), details: 'the process running it was killed by SIGABRT' });
    }
  });

  it('while the file loads: every test says the cap, and the line when the stack shows one', () => {
    const verdict = fromOutcome({ kind: 'load_failed', error: failed(STACK) }, graded, fixture, limitsOf(2 * 1024 ** 3), (error) => studentStack(error, prepared));
    expect(verdict.reason).toBe(thrownWords(failed(STACK), true, 2 * 1024 ** 3, 'kim/index.ts:6:19'));
    expect(verdict.reason).toMatch(/^the submission failed to load: it reached the memory limit of 2 GiB at kim\/index\.ts:6:19: /);
    const died = fromOutcome({ kind: 'crashed', how: 'was killed by SIGABRT: memory limit exceeded', duringLoad: true }, graded, fixture, limitsOf(1024 ** 3), (error) => studentStack(error, prepared));
    expect(died.reason).toMatch(/^the submission failed to load: it reached the memory limit of 1 GiB: /);
  });

  it("the function's other tests name the cap and the test it was reached in", () => {
    expect(notRunAfterFault('causalMask', { kind: 'memory', capBytes: 1536 * 1024 ** 2 }, 'test_causal_mask')).toBe(
      'not run: `causalMask` reached the memory limit of 1.5 GiB in test_causal_mask, so its other tests fail at once (one fault costs that function only)',
    );
  });
});
