/**
 * Not an attack: grades in a process of its own, so that an attack that kills its grader's process
 * kills this one and not vitest. Prints the outcome as JSON on stdout.
 *
 *   node scripts/runTs.js selftest/attacks/runner.ts batch <submissions> <out> <timeoutMs> <memoryBytes> <jobs> [budgetMs] [carry]
 *
 * `carry`: with --carry-forward, on every case, hidden ones included.
 */
import { gradeBatch } from '../../lib/batch/gradeBatch';
import { loadCaseFixtures, prepareChild } from '../../lib/grading/grade';
import { GRADED_CASES } from '../../tests/cases';
import { gradeOptions } from '../grader/harness';
import { ASSIGNMENT } from '../../tests/assignment';

const USAGE = 'usage: runner.ts batch <submissions> <out> <timeoutMs> <memoryBytes> <jobs> [budgetMs] [carry]';

async function main(): Promise<unknown> {
  const [mode, first, second, timeout, memory, jobs, budget, carry] = process.argv.slice(2);
  const overrides = { timeoutMs: Number(timeout), child: prepareChild(Number(memory)), ...(budget ? { budgetMs: Number(budget) } : {}) };
  // With the pages, as `npm run grade -- --submissions` does: the probes for heatmaps meet every attack too.
  if (mode === 'batch') {
    const carried = carry === 'carry' ? { carryForward: true, cases: GRADED_CASES, fixtures: loadCaseFixtures(ASSIGNMENT, GRADED_CASES) } : {};
    return gradeBatch(first, second, { ...gradeOptions({ ...overrides, ...carried }), memoryBytes: Number(memory), jobs: Number(jobs), force: true, html: true });
  }
  throw new Error(USAGE);
}

main().then(
  (outcome) => process.stdout.write(JSON.stringify(outcome)),
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
