import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The harness's own tests (`npm run selftest`), kept apart from the students' graded suite.
 *
 * Most files spend their time waiting on contained children, type checks and CLI runs, so they
 * run several at a time (vitest's default, cores − 1, is one file at a time on a 2-core runner).
 * Files share nothing they do not hand back: every one works in folders of its own (mkdtemp), each
 * grading process takes uids from a block of its own pid (lib/sandbox/uidPool.ts), and a file that
 * looks for processes from its own pid down has a worker to itself (OWN_WORKER). Two things are
 * shared, and decide the groups run after the first:
 * - the machine's world-writable folders: the attack files (selftest/attacks.test.ts,
 *   selftest/attacks/settings.test.ts) check that no contained child left anything there since
 *   they began, and selftest/attacks/bare.test.ts runs attacks uncontained, which do leave files;
 * - the scheduler: starvedChild.test.ts pins a child to a CPU and sets its weight to starve it on
 *   purpose; beside the rest of the suite the share it gives the child would be the suite's to
 *   decide. Tried beside the two attack files: its starved call took 18.7 s instead of about 6 s,
 *   at 30 s it is a grader failure, and its spinner held a core all that time. The rest of charged
 *   time (chargedTime.test.ts: a child stopped, a hang spinning or sleeping) is charged the same
 *   whatever the load, and runs with the others.
 * Those two run last, side by side: bare's six uncontained attacks are light (about 5 s), and
 * starvedChild leaves the other core mostly idle on purpose. Before them, alone, the two paths held
 * to one verdict over the whole catalogue (verdicts.test.ts): its diagnoses depend on probes
 * answering, and beside the attack batches a fresh-clone run once had 8 of its 115 submissions
 * explained in one path and not the other. The likely cause, reproduced on a single submission in
 * a control group given 2 % of a core: npm test's in-process probes run in wall time, and a starved
 * test met the graded suite's own 30 s test timeout (vitest.config.mts) before its diagnosis, while
 * the grader, which charges its child CPU time, explained it. Same verdict, no diagnosis on one path.
 */
const ALONE = ['selftest/grader/verdicts.test.ts'];
const LAST = ['selftest/attacks/bare.test.ts', 'selftest/grader/starvedChild.test.ts'];
/**
 * The longest files, longest first (CPU of each on its own, `npm run bench:suite -- --files`,
 * after the cuts of issue 45): started first, they do not keep the run going alone at its end. A
 * file not listed keeps vitest's own order (larger files first on a fresh clone).
 */
const LONGEST = [
  'selftest/grader/verdicts.test.ts',
  'selftest/attacks/settings.test.ts',
  'selftest/attacks.test.ts',
  'selftest/attacks/names.test.ts',
  'selftest/classroomDocs.test.ts',
  'selftest/secondAssignment.test.ts',
  'selftest/diagnosisAudit.test.ts',
  'selftest/gradescope.test.ts',
  'selftest/releaseParts.test.ts',
  'selftest/gradescopeInstall.test.ts',
  'selftest/diagnosis.test.ts',
  'selftest/courseWorkflow.test.ts',
  'selftest/suite.test.ts',
  'selftest/grader/cli.test.ts',
  'selftest/grader/carryForward.test.ts',
  'selftest/gradients/grader.test.ts',
  'selftest/grader/faults.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = LONGEST.findIndex((name) => spec.moduleId.endsWith(`/${name}`));
      return at < 0 ? LONGEST.length : at;
    };
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    // Array.prototype.sort is stable: files of one rank keep vitest's order.
    return (await super.sort(files)).sort((a, b) => group(a) - group(b) || rank(a) - rank(b));
  }
}

/**
 * A hang guard, not a speed check: with three files at a time, beside a CI runner's other tenants,
 * the longest tests (a type check of the project, a course graded and merged) took 80 s on a
 * machine at load 15, two thirds of the 120 s this was.
 */
const shared = { testTimeout: 300_000, hookTimeout: 300_000 };
/**
 * The quick tier's own sample (vitest.quick.config.mts): what it checks, the suite checks in full
 * elsewhere, so the whole run leaves it out.
 */
export const QUICK_ONLY = ['selftest/quick.test.ts'];
/**
 * selftest/assignments/ holds assignments the self-tests grade (selftest/secondAssignment.test.ts):
 * their suites are theirs to run against a submission, and their `lib` links to the project's.
 */
const NOT_SELF_TESTS = ['**/node_modules/**', 'selftest/assignments/**', ...QUICK_ONLY];
const group = (name: string, order: number, include: string[], exclude: string[], maxWorkers: number, isolate = true) => ({
  test: { ...shared, name, include, exclude: [...NOT_SELF_TESTS, ...exclude], maxWorkers, isolate, sequence: { groupOrder: order } },
});
/**
 * lib's unit tests share their workers (vitest's isolate off): a worker of its own per file cost
 * each of them a process and its modules again, about half a second of CPU a file; they keep no
 * state past their own file (each makes its own folders, restores what it changes).
 */
const UNITS = ['lib/**/*.test.ts'];
/**
 * The self-test files that need a worker of their own; the others share theirs, as lib's units do.
 * Shared, 73 files took 595 s of CPU against 619 s each in its own worker (one run each, at rest):
 * the harness's modules are loaded once per worker, not once per file, and a grading in process
 * finds the transpiling process and the launcher a file before it left idle. Shared state is the
 * rule for each of these, so they keep a process to themselves:
 * - they change the process's environment or its signal handlers for their tests
 *   (attacks.test.ts, attacks/fetchBudget.test.ts, gradients/grader.test.ts, grader/interrupt.test.ts);
 * - they look for their own processes from the worker's pid down, where a shared worker holds the
 *   idle processes other files left (grader/parserCrash.test.ts, grader/orphan.test.ts,
 *   grader/chargedTime.test.ts);
 * - they hold the machine's state from their start to their end (attacks/settings.test.ts).
 */
const OWN_WORKER = [
  'selftest/attacks.test.ts',
  'selftest/attacks/settings.test.ts',
  'selftest/attacks/fetchBudget.test.ts',
  'selftest/gradients/grader.test.ts',
  'selftest/grader/interrupt.test.ts',
  'selftest/grader/parserCrash.test.ts',
  'selftest/grader/orphan.test.ts',
  'selftest/grader/chargedTime.test.ts',
];

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    projects: [
      group('units', 0, UNITS, [...ALONE, ...LAST], 3, false),
      group('shared', 0, ['selftest/**/*.test.ts'], [...ALONE, ...LAST, ...OWN_WORKER], 3, false),
      group('parallel', 0, OWN_WORKER, [], 3),
      group('alone', 1, ALONE, [], 1),
      group('last', 2, LAST, [], 2),
    ],
  },
});
