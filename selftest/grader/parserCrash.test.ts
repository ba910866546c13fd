/**
 * A transpiling process that dies on a submission (here killed with SIGSEGV while it reads it, as
 * a parser's stack overflow or a crash of its native code would end it) costs that submission
 * only: the batch goes on, writes grades.csv and batch.json, the honest submissions get full
 * marks, and the row of the one that could not be read names the file and says why. It once ran
 * in a worker thread of the grading process, which the same crash took down with everything.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RECORD_FILE } from '../../lib/batch/record';
import { firstToSay, notRunAfterLoad } from '../../lib/model/notRun';
import { gradeBatch, type BatchOutcome } from '../../lib/batch/gradeBatch';
import { PROJECT_ROOT } from '../../lib/paths';
import { csvRecords } from '../../lib/report/exports';
import { ownChildren } from '../../lib/sandbox/ownChildren.testkit';
import { warmTranspiler } from '../../lib/sandbox/transpilePool';
import { gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';

const work = tempDir('parser-crash');
const submissions = path.join(work, 'submissions');
const out = path.join(work, 'out');
const FULL_MARKS = 12;

/** The transpiling processes of this process, with the CPU ticks each has spent. */
const transpilers = () => ownChildren('transpileWorker');

let outcome: BatchOutcome;

beforeAll(async () => {
  const reference = path.join(PROJECT_ROOT, 'reference', 'index.ts');
  // Graded first (names are taken in order, one at a time): honest code, but much of it for TypeScript.
  const big = materialize(reference, submissions, 'a_big_one');
  const helper = Array.from({ length: 20_000 }, (_, i) => `export const v${i}: number = ${i} * 2;`).join('\n');
  fs.writeFileSync(path.join(big, 'constants.ts'), `${helper}\n`);
  fs.appendFileSync(path.join(big, 'index.ts'), "\nexport * from './constants';\n");
  materialize(reference, submissions, 'good');
  materialize(path.join(__dirname, '..', 'catalogue', 'correct', 'plain_loops.ts'), submissions, 'good_loops');

  await warmTranspiler();
  const before = transpilers();
  // The first process to spend a tenth of a second of CPU on a job is reading a_big_one: it dies.
  let killed = false;
  const watch = setInterval(() => {
    for (const [pid, ticks] of transpilers()) {
      if (killed || ticks - (before.get(pid) ?? 0) < 10) continue;
      process.kill(pid, 'SIGSEGV');
      killed = true;
    }
  }, 10);
  try {
    outcome = await gradeBatch(submissions, out, { ...gradeOptions({ timeoutMs: 30_000 }), jobs: 1, force: true });
  } finally {
    clearInterval(watch);
  }
  expect(killed).toBe(true);
}, 600_000);

describe('a transpiling process killed with SIGSEGV in the middle of a batch', () => {
  it('the batch ends with its files, every row, the honest ones at full marks', () => {
    expect(fs.existsSync(path.join(out, RECORD_FILE))).toBe(true);
    const totals = Object.fromEntries(csvRecords(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8')).map((r) => [r.name, Number(r.total)]));
    expect(totals).toEqual({ a_big_one: 0, good: FULL_MARKS, good_loops: FULL_MARKS });
    expect(outcome.graderErrors).toEqual([]);
  });

  it("the submission it was reading fails to load, its first test naming the file and what happened, the others naming that test", () => {
    const result = outcome.graded.find((r) => r.name === 'a_big_one')!;
    for (const c of result.cases) expect(c.status).toBe('error');
    const first = firstToSay(result.cases)!;
    expect(first.reason).toMatch(/^the submission could not be compiled: the transpiler stopped \(SIGSEGV\) \(reading a_big_one\/(index|constants)\.ts\); simplify deeply nested code$/);
    for (const c of result.cases.filter((other) => other !== first)) expect(c.reason).toBe(notRunAfterLoad(first.name));
  });
});
