import { describe, expect, it } from 'vitest';
import { faultOf, FunctionLedger } from './faults';
import { notRunAfterFault, shareSpent } from './hangWords';

describe('FunctionLedger', () => {
  it('shares the budget equally among the functions with cases, and charges each only its own calls', () => {
    const ledger = new FunctionLedger(4000, ['softmax', 'causal_mask', 'softmax']);
    expect(ledger.shareMs).toBe(2000);
    ledger.charge('softmax', 1500);
    expect(ledger.left('softmax')).toBe(500);
    expect(ledger.left('causal_mask')).toBe(2000);
    ledger.charge('softmax', 600);
    expect(ledger.blocked('softmax')).toEqual({ reason: shareSpent('softmax', 2000, 4000, false), status: 'timeout' });
    expect(ledger.blocked('causal_mask')).toBeUndefined();
  });

  it("names a function's first fault in its other tests, with the fault's status", () => {
    const ledger = new FunctionLedger(60_000, ['softmax', 'causal_mask']);
    ledger.fault('causal_mask', { kind: 'memory', capBytes: 2 * 1024 ** 3 }, 'test_causal_mask');
    ledger.fault('causal_mask', { kind: 'hang', timeoutMs: 10_000 }, 'test_causal_mask_large');
    expect(ledger.blocked('causal_mask')).toEqual({ reason: notRunAfterFault('causal_mask', { kind: 'memory', capBytes: 2 * 1024 ** 3 }, 'test_causal_mask'), status: 'crashed' });
    expect(ledger.blocked('causal_mask')!.reason).toContain('reached the memory limit of 2 GiB in test_causal_mask');
    expect(ledger.blocked('softmax')).toBeUndefined();
  });
});

describe('faultOf', () => {
  it('every way a call ends its process, and an allocation that failed; not a spent share, nor a load', () => {
    expect(faultOf({ kind: 'timeout' }, 500)).toEqual({ kind: 'hang', timeoutMs: 500 });
    expect(faultOf({ kind: 'timeout', budget: true }, 500)).toBeUndefined();
    expect(faultOf({ kind: 'timeout', duringLoad: true }, 500)).toBeUndefined();
    expect(faultOf({ kind: 'crashed', how: 'was killed by SIGABRT: memory limit exceeded' }, 500, 256 * 1024 ** 2)).toEqual({ kind: 'memory', capBytes: 256 * 1024 ** 2 });
    expect(faultOf({ kind: 'crashed', how: 'exited with code 3' }, 500)).toEqual({ kind: 'crash', how: 'exited with code 3' });
    expect(faultOf({ kind: 'refused', how: "flooded its output: it printed more than 64 MiB around the grader's capture" }, 500)).toEqual({ kind: 'flood' });
    expect(faultOf({ kind: 'refused', how: 'sent the grader more than 16 messages it did not ask for' }, 500)).toMatchObject({ kind: 'refused' });
    expect(faultOf({ kind: 'threw', error: { message: 'Array buffer allocation failed' } }, 500)).toEqual({ kind: 'memory', capBytes: 2 * 1024 ** 3 });
    expect(faultOf({ kind: 'threw', error: new Error('wrong') }, 500)).toBeUndefined();
    expect(faultOf({ kind: 'value' }, 500)).toBeUndefined();
  });
});
