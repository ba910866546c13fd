import { defineConfig } from 'vitest/config';

/**
 * The harness's own tests (`npm run selftest`), kept apart from the students' graded suite.
 *
 * Most files spend their time waiting on contained children, type checks and CLI runs, so they
 * run several at a time (vitest's default, cores − 1, is one file at a time on a 2-core runner).
 * Files share nothing: every one works in folders of its own (mkdtemp), each grading process
 * takes uids from a block of its own pid (lib/sandbox/uidPool.ts), and a file looks for processes
 * from its own pid down. Three things are shared, and decide the groups below, run one after the
 * other:
 * - the machine's world-writable folders and the project: selftest/attacks.test.ts runs the
 *   attacks that leave files once without containment (to show they are real) and both it and
 *   selftest/attacks/settings.test.ts count and remove what was left since they began, so those
 *   two never run at the same time;
 * - the scheduler: chargedTime.test.ts pins a child to a CPU and sets its weight to starve it on
 *   purpose; beside the rest of the suite the share it gives the child would be the suite's to
 *   decide, so it runs last, alone.
 * The settings are graded beside verdicts.test.ts, the other long file, which runs no attack.
 */
const LEFTOVER_CHECK = 'selftest/attacks/settings.test.ts';
const BESIDE_IT = 'selftest/grader/verdicts.test.ts';
const ALONE = 'selftest/grader/chargedTime.test.ts';
/**
 * A hang guard, not a speed check: with three files at a time, beside a CI runner's other tenants,
 * the longest tests (a type check of the project, a course graded and merged) took 80 s on a
 * machine at load 15, two thirds of the 120 s this was.
 */
const shared = { testTimeout: 300_000, hookTimeout: 300_000 };
const group = (name: string, order: number, include: string[], exclude: string[] = [], maxWorkers = 3) => ({
  test: { ...shared, name, include, exclude: ['**/node_modules/**', ...exclude], maxWorkers, sequence: { groupOrder: order } },
});

export default defineConfig({
  test: {
    projects: [
      group('parallel', 0, ['lib/**/*.test.ts', 'selftest/**/*.test.ts'], [LEFTOVER_CHECK, BESIDE_IT, ALONE]),
      group('settings', 1, [LEFTOVER_CHECK, BESIDE_IT]),
      group('alone', 2, [ALONE], [], 1),
    ],
  },
});
