import vm from 'node:vm';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LONGEST_MS, nodeMs } from './nodeMs';

/** Durations as limits are computed: fractions, tiny and near-zero ones, whole ones, and past every API's range. */
const durations = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.double({ min: 0, max: 20_000, noNaN: true }),
  fc.double({ min: LONGEST_MS - 10, max: 2 ** 53, noNaN: true }),
  fc.integer({ min: 0, max: 60_000 }),
  fc.constantFrom(Number.MIN_VALUE, 1e-300, 0.5, 1.5, 8956.492359, 2 ** 31, 2 ** 32, 1e12, Infinity),
);

describe('nodeMs', () => {
  it('is a whole number of ms from 1 to 2^31 − 1, never below the duration unless the duration is past the range', () => {
    fc.assert(fc.property(durations, (ms) => {
      const n = nodeMs(ms);
      expect(Number.isInteger(n)).toBe(true);
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(LONGEST_MS);
      if (ms <= LONGEST_MS) expect(n).toBeGreaterThanOrEqual(ms);
      expect(n - ms).toBeLessThan(1 + (ms < 1 ? 1 : 0));
    }));
  });

  it("is taken by node:vm's timeout and child_process's, which refuse a fraction or a value past their range", () => {
    const script = new vm.Script('1');
    const accepted = (ms: number) => {
      try {
        return script.runInThisContext({ timeout: nodeMs(ms) }) === 1;
      } catch (err) {
        // A limit of 1 ms may pass before so short a script ends on a loaded machine: taken, not refused.
        return (err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
      }
    };
    fc.assert(fc.property(durations, (ms) => accepted(ms)), { numRuns: 300 });
    // A limit it refuses throws at once; one it takes may still end the command (ETIMEDOUT).
    for (const ms of [0.5, 8956.492359, 2 ** 40]) expect(() => spawnSync('true', [], { timeout: nodeMs(ms) })).not.toThrow();
  });

  it('what Node does without it: the fraction that stopped a correct submission', () => {
    expect(() => new vm.Script('1').runInThisContext({ timeout: 8956.492359 })).toThrow(/must be an integer/);
    expect(() => spawnSync('true', [], { timeout: 0.5 })).toThrow(/must be an integer/);
    expect(() => new vm.Script('1').runInThisContext({ timeout: 2 ** 32 })).toThrow(/out of range/);
  });

  it('refuses NaN: a duration that is not a number is a bug, not a limit', () => {
    expect(() => nodeMs(Number.NaN)).toThrow(TypeError);
  });
});
