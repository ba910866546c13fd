/**
 * npm run bench:budget: what a submission can make the grader spend (lib/bench/budget.ts), each
 * kind of misbehaviour in every graded function, graded at the defaults; its section of
 * docs/benchmarks.md rewritten with the figures. It takes minutes: most rows are the limits at work.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { budgetTable, measureBudget } from '../lib/bench/budget';
import { describeMachine, machine } from '../lib/bench/measure';
import { withSection } from '../lib/bench/benchmarksDoc';
import { PROJECT_ROOT } from '../lib/paths';
import { ASSIGNMENT } from '../tests/assignment';

parseFlags(process.argv.slice(2), {}, 'npm run bench:budget');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-budget-'));
const loadStart = os.loadavg()[0];
measureBudget(ASSIGNMENT, path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'bugs', 'base.ts'), work, (line) => console.log(line))
  .then((rows) => {
    const section = [
      "## A submission's budget",
      '',
      'Submissions that do one thing in every graded function, graded as `npm run grade -- --hidden` grades them at the defaults '
        + '(10 s per test and a 60 s budget, both in the CPU time the child is charged; a 2 GiB memory cap), each alone; the wall time '
        + 'is the whole grading of the submission. Each function has 15 s of the budget for its tests, a call that ends its process '
        + 'fails its function\'s other tests at once, an answer larger than the promised shape is judged by its shape, and prints past '
        + 'the 4096 kept characters are counted, not formatted (docs/grading.md, Time limits). A sleeping hang is charged a quarter of its wall '
        + 'time, so it ends at 40 s of wall time per function: the one row the wall clock may take past the budget, by design.',
      '',
      ...budgetTable(rows),
      '',
      `(Measured on ${new Date().toISOString().slice(0, 10)} by \`npm run bench:budget\` on ${describeMachine(machine())}, `
        + `load average ${loadStart.toFixed(2)} at the start and ${os.loadavg()[0].toFixed(2)} at the end.)`,
    ];
    const file = path.join(PROJECT_ROOT, 'docs', 'benchmarks.md');
    fs.writeFileSync(file, withSection(fs.readFileSync(file, 'utf8'), section));
    console.log(section.join('\n'));
  })
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => fs.rmSync(work, { recursive: true, force: true }));
