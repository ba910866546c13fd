/**
 * npm run grade [-- flags]: point totals for a submission, or for a folder of them.
 *
 *   --submission DIR      grade DIR (holding index.ts or student/index.ts) instead of ./student
 *   --reference           grade the reference (must score full marks)
 *   --hidden              include the instructor-only cases
 *   --json FILE           also write Gradescope results.json
 *   --html FILE           also write a page: the score table, and heatmaps of each failed attention case
 *   --instructor-view     pages also show hidden tests' expected values (and say so): not for students
 *   --submissions DIR --out DIR2 [--jobs N] [--force]
 *                         batch: every subfolder of DIR; writes DIR2/grades.csv, DIR2/<name>.json,
 *                         DIR2/<name>.html (the --html page) and DIR2/report.html (the whole batch)
 *   --timeout S           per-test time limit in seconds (default 10)
 *   --budget S            time budget of a whole submission, all its tests together (default 60)
 *   --memory MIB          memory cap per child process, typed arrays included (default 2048)
 *
 * Exits 0 whenever it produced a result, whatever the score; 1 when it could not grade; 2 on
 * a usage error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { GraderError, FixtureError } from '../lib/errors';
import { writeFileAtomic } from '../lib/fsAtomic';
import { gradeBatch } from '../lib/grading/batch';
import { checkChildStarts, gradeSubmission, loadCaseFixtures, prepareChild, type GradeOptions } from '../lib/grading/grade';
import { PROJECT_ROOT } from '../lib/paths';
import { writeGithubOutputs } from '../lib/report/github';
import { toGradescope } from '../lib/report/gradescope';
import { submissionPage } from '../lib/report/submissionPage';
import { doneLine, formatBatchSummary, formatTable, progressLine } from '../lib/report/terminal';
import { GRADED_CASES } from '../tests/cases';

const USAGE =
  'npm run grade -- [--submission DIR | --reference | --submissions DIR --out DIR2 [--jobs N] [--force]] [--hidden] [--json FILE] [--html FILE] [--instructor-view] [--timeout S] [--budget S] [--memory MIB]';
const flags = parseFlags(
  process.argv.slice(2),
  {
    submission: 'string', reference: 'boolean', hidden: 'boolean', json: 'string', html: 'string', 'instructor-view': 'boolean',
    submissions: 'string', out: 'string', jobs: 'number', force: 'boolean', timeout: 'number', budget: 'number', memory: 'number',
  },
  USAGE,
);

function usage(problem: string): never {
  console.error(`${problem}; usage: ${USAGE}`);
  process.exit(2);
}

if (flags.reference && flags.submission) usage('--reference and --submission both name the submission: pick one');
if (flags.submissions && (flags.submission || flags.reference)) usage('--submissions grades a folder of submissions: drop --submission/--reference');
if (flags.submissions && !flags.out) usage('--submissions needs --out DIR2 for grades.csv and the results');
if (!flags.submissions && (flags.out || flags.jobs || flags.force)) usage('--out, --jobs and --force go with --submissions');
if (flags.submissions && flags.json) usage('--json is for one submission; a batch writes DIR2/<name>.json');
if (flags.submissions && flags.html) usage('--html is for one submission; a batch always writes DIR2/<name>.html and DIR2/report.html');

/** What a child must not see into: the other submissions (a batch's folder, a submission's siblings), the results, the temp folder. */
function hiddenFolders(): string[] {
  if (flags.submissions) return [path.resolve(flags.submissions), path.resolve(flags.out!), os.tmpdir()];
  if (flags.submission) return [path.dirname(path.resolve(flags.submission)), os.tmpdir()];
  return [os.tmpdir()];
}

async function main(): Promise<void> {
  const cases = GRADED_CASES.filter((c) => flags.hidden || !c.hidden);
  const options: GradeOptions = {
    cases,
    fixtures: loadCaseFixtures(cases),
    child: prepareChild((flags.memory ?? 2048) * 1024 ** 2, hiddenFolders()),
    timeoutMs: (flags.timeout ?? 10) * 1000,
    budgetMs: (flags.budget ?? 60) * 1000,
    outputCap: 4096,
    instructorView: Boolean(flags['instructor-view']),
  };
  await checkChildStarts(options.child);
  const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  // On a grading server (root) a missing layer of containment is worth a line; on a laptop it is expected.
  if (process.getuid?.() === 0) for (const gap of options.child.missing) console.error(`grade: running without ${gap}`);

  if (flags.submissions) {
    const outcome = await gradeBatch(path.resolve(flags.submissions), path.resolve(flags.out!), {
      ...options,
      jobs: flags.jobs ?? os.availableParallelism(),
      force: Boolean(flags.force),
      html: true,
      onDone: (result, done, total) => {
        if (color) process.stdout.write(progressLine(done, total, result.name));
        else console.log(doneLine(result));
      },
    });
    if (color) process.stdout.write('\n');
    if (outcome.skipped.length) console.log(`kept ${outcome.skipped.length} earlier result(s); --force regrades them`);
    console.log(formatBatchSummary(outcome.graded));
    console.log(`wrote ${path.join(flags.out!, 'grades.csv')} (${outcome.rows.length} rows) and ${path.join(flags.out!, 'report.html')}`);
    return;
  }

  const dir = flags.reference ? path.join(PROJECT_ROOT, 'reference') : path.resolve(flags.submission ?? path.join(PROJECT_ROOT, 'student'));
  const name = flags.reference ? 'reference' : path.basename(dir);
  const result = await gradeSubmission(dir, name, { ...options, heatmaps: Boolean(flags.html) });
  console.log(formatTable(result, { color }));
  if (flags.json) writeFileAtomic(path.resolve(flags.json), `${JSON.stringify(toGradescope(result), null, 2)}\n`);
  if (flags.html) {
    fs.mkdirSync(path.dirname(path.resolve(flags.html)), { recursive: true });
    writeFileAtomic(path.resolve(flags.html), submissionPage(result));
  }
  if (process.env.GITHUB_ACTIONS) console.log(writeGithubOutputs(result));
}

main().catch((err: unknown) => {
  const known = err instanceof GraderError || err instanceof FixtureError;
  console.error(`grade: could not grade: ${known ? (err as Error).message : (err as Error)?.stack ?? String(err)}`);
  process.exit(1);
});
