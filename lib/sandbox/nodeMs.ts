/**
 * A duration as Node takes it, made in one place. Limits here are computed (what is left of a
 * share of the budget, a --timeout in seconds times 1000) and so are fractions or, from a flag,
 * huge; Node is strict where it matters: node:vm refused a timeout of 8956.49 ms with a RangeError
 * in the middle of a correct, slow submission's run, child_process refuses a fraction too, and a
 * timer past 2^31 − 1 ms fires after 1 ms instead (with a warning). Every limit and delay that is
 * not a constant goes through nodeMs before it reaches Node (selftest/nodeDurations.test.ts).
 */

/** The longest delay Node's timers keep (about 24.8 days); vm's and child_process's limits take it too. */
export const LONGEST_MS = 2 ** 31 - 1;

/**
 * `ms` as a whole number of milliseconds Node accepts as a timeout or a delay: rounded up (a limit
 * is never cut short by the rounding), at least 1 (0 means "none" to some of Node's APIs, and a
 * limit of none is no limit), at most LONGEST_MS (a longer one may as well be for ever).
 */
export function nodeMs(ms: number): number {
  if (Number.isNaN(ms)) throw new TypeError('nodeMs: a duration that is not a number');
  return Math.min(LONGEST_MS, Math.max(1, Math.ceil(ms)));
}
