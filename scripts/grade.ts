/**
 * npm run grade [-- flags]: point totals for a submission, or for a folder of them. The flags are
 * described in HELP below (`npm run grade -- --help`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { GraderError, FixtureError } from '../lib/errors';
import { writeFileAtomic } from '../lib/fsAtomic';
import { regradeLine } from '../lib/batch/resume';
import { parseShard, type Shard } from '../lib/batch/shard';
import { gradeBatch } from '../lib/grading/batch';
import { checkChildStarts, gradeSubmission, loadCaseFixtures, prepareChild, type GradeOptions } from '../lib/grading/grade';
import { IS_HANDOUT, PROJECT_ROOT } from '../lib/paths';
import { writeGithubOutputs } from '../lib/report/github';
import { toGradescope } from '../lib/report/gradescope';
import { containmentBlock, containmentLine } from '../lib/report/containment';
import { submissionPage } from '../lib/report/submissionPage';
import { containmentReport } from '../lib/sandbox/containment';
import { doneLine, formatBatchSummary, formatTable, progressLine } from '../lib/report/terminal';
import { oneLine } from '../lib/text/sanitise';
import { CANVAS_CSV, canvasLines, LONG_CSV, readRoster, RosterError, type RosterEntry } from '../lib/report/exports';
import type { Variants } from '../lib/model/variants';
import { GRADED_CASES } from '../tests/cases';

// In the student handout (no reference/, no hidden fixtures, no similarity check) the flags that
// need instructor files are neither listed nor accepted: --help shows only what works there.
const INSTRUCTOR_FLAGS = ['reference', 'hidden', 'variants', 'instructor-view', 'similarity', 'carry-forward'] as const;
const FOR_INSTRUCTORS = (flag: string) => IS_HANDOUT && (INSTRUCTOR_FLAGS as readonly string[]).includes(flag);

const USAGE = IS_HANDOUT
  ? 'npm run grade -- [--submission DIR | --submissions DIR --out DIR2 [--jobs N] [--force] [--shard i/n] [--roster FILE [--assignment NAME]]] [--json FILE] [--html FILE] [--verbose] [--timeout S] [--budget S] [--memory MIB]'
  : 'npm run grade -- [--submission DIR | --reference | --submissions DIR --out DIR2 [--jobs N] [--force] [--shard i/n] [--similarity] [--roster FILE [--assignment NAME]]] [--hidden [--variants SECRET]] [--carry-forward] [--json FILE] [--html FILE] [--instructor-view] [--verbose] [--timeout S] [--budget S] [--memory MIB]';

/** Each flag's lines of help; the instructor-only ones are left out in the handout. */
const FLAG_HELP: [flag: string, text: string][] = [
  ['submission', '  --submission DIR   grade DIR (holding index.ts, or student/index.ts) instead of ./student'],
  ['reference', '  --reference        grade the reference (must score full marks)'],
  ['hidden', '  --hidden           include the instructor-only cases'],
  ['variants', `  --variants SECRET  with --hidden: each submission's hidden inputs drawn from SECRET and its name
                     (the same secret and name give the same cases; a batch records a hash of it)`],
  ['carry-forward', `  --carry-forward    a multi-head test whose code is right given the student's own
                     scaledDotProductAttention earns its points (its reason says so); off by default`],
  ['json', "  --json FILE        also write Gradescope's results.json"],
  ['html', '  --html FILE        also write a page: the score table, and heatmaps of each failed attention case'],
  ['instructor-view', "  --instructor-view  pages also show hidden tests' expected values (and say so): not for students"],
  ['verbose', `  --verbose          also show each test's details (every failing check, the student's stack mapped
                     to its own lines), what the submission printed, and the containment in force`],
  ['submissions', `  --submissions DIR --out DIR2 [--jobs N] [--force] [--shard i/n]
                     batch: every subfolder of DIR; writes DIR2/grades.csv, DIR2/grades-long.csv (submission,
                     test, points, max, status, cause_id, cause), DIR2/submissions/<name>.json,
                     DIR2/submissions/<name>.html, DIR2/report.html and DIR2/batch.json (what it was graded
                     with); a rerun regrades only what no longer matches (--force: everything);
                     --shard i/n grades only shard i of n (npm run merge joins the shards)`],
  ['similarity', `  --similarity       with --submissions: also compares the submissions' code with each other
                     (DIR2/similarity.csv and DIR2/similarity.html; the same as npm run similarity)`],
  ['roster', `  --roster FILE      with --submissions: also DIR2/canvas.csv, Canvas's gradebook import, for the
                     students of FILE (a CSV: submission, and student, id, sis_user_id, sis_login_id,
                     section); submissions it does not name are listed and marked in canvas.csv`],
  ['assignment', '  --assignment NAME  the Canvas column: "<name> (<id>)" of an existing assignment, or a new one\'s name'],
  ['timeout', '  --timeout S        per-test time limit in seconds (default 10)'],
  ['budget', '  --budget S         time budget of a whole submission, all its tests together (default 60)'],
  ['memory', '  --memory MIB       memory cap per child process, typed arrays included (default 2048)'],
  ['help', '  --help             this text'],
];

const HELP = `Grades a submission on the graded cases of tests/cases.ts: its code runs in a contained child
process, this one checks the answers and awards the points.

usage: ${USAGE}

${FLAG_HELP.filter(([flag]) => !FOR_INSTRUCTORS(flag)).map(([, text]) => text).join('\n')}

Exits 0 whenever it produced a result, whatever the score; 1 when it could not grade; 2 on a
usage error (a flag, a folder that does not exist).`;
const flags = parseFlags(
  process.argv.slice(2),
  {
    submission: 'string', reference: 'boolean', hidden: 'boolean', variants: 'string', json: 'string', html: 'string', 'instructor-view': 'boolean', verbose: 'boolean', 'carry-forward': 'boolean',
    submissions: 'string', out: 'string', jobs: 'number', force: 'boolean', shard: 'string', similarity: 'boolean', roster: 'string', assignment: 'string', timeout: 'number', budget: 'number', memory: 'number',
  },
  USAGE,
  HELP,
);

function usage(problem: string): never {
  console.error(`${problem}; usage: ${USAGE}`);
  process.exit(2);
}

for (const flag of INSTRUCTOR_FLAGS) {
  if (FOR_INSTRUCTORS(flag) && flags[flag]) usage(`--${flag} is for instructors: this handout has no reference solution, hidden tests or similarity check (grade your own work with npm run grade)`);
}

if (flags.variants !== undefined && !flags.hidden) usage('--variants draws the hidden cases: pass --hidden too');
if (flags.variants === '') usage('--variants needs a secret: the course\'s, the same for every run that must give the same cases');
if (flags.reference && flags.submission) usage('--reference and --submission both name the submission: pick one');
if (flags.submissions && (flags.submission || flags.reference)) usage('--submissions grades a folder of submissions: drop --submission/--reference');
if (flags.submissions && !flags.out) usage('--submissions needs --out DIR2 for grades.csv and the results');
if (!flags.submissions && (flags.out || flags.jobs || flags.force || flags.shard || flags.similarity)) usage('--out, --jobs, --force, --shard and --similarity go with --submissions');
if (!flags.submissions && (flags.roster || flags.assignment)) usage('--roster and --assignment go with --submissions (or with npm run merge)');
if (flags.assignment && !flags.roster) usage('--assignment names the Canvas column of --roster FILE\'s export: pass --roster too');
if (flags.shard && flags.similarity) usage('--similarity compares the whole folder: run npm run similarity -- --submissions DIR --out DIR2 once, not per shard');
function shardFlag(): Shard | undefined {
  if (flags.shard === undefined) return undefined;
  const parsed = parseShard(flags.shard);
  return typeof parsed === 'string' ? usage(parsed) : parsed;
}
const shard = shardFlag();
if (flags.submissions && flags.json) usage('--json is for one submission; a batch writes DIR2/submissions/<name>.json');
if (flags.submissions && flags.html) usage('--html is for one submission; a batch always writes DIR2/submissions/<name>.html and DIR2/report.html');
if (flags.submissions && flags.verbose) usage('--verbose is for one submission: grade one alone with --submission DIR/<name> --verbose');

/** A folder named on the command line that is not there is the command's mistake, not a student's result. */
function requireFolder(flag: string, dir: string | undefined, what: string): void {
  if (dir === undefined || fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
  console.error(`grade: --${flag} ${dir}: ${fs.existsSync(dir) ? 'not a folder' : 'no such folder'}; pass ${what}`);
  process.exit(2);
}
requireFolder('submission', flags.submission, 'the folder that holds index.ts (or student/index.ts)');
requireFolder('submissions', flags.submissions, 'a folder with one subfolder per submission');

/** What a child must not see into: the other submissions (a batch's folder, a submission's siblings), the results, the temp folder. */
function hiddenFolders(): string[] {
  if (flags.submissions) {
    // Made now so that it is hidden from the first child: classmates' results are written there.
    fs.mkdirSync(path.resolve(flags.out!), { recursive: true });
    return [path.resolve(flags.submissions), path.resolve(flags.out!), os.tmpdir()];
  }
  if (flags.submission) return [path.dirname(path.resolve(flags.submission)), os.tmpdir()];
  return [os.tmpdir()];
}

/** The draws and the reference behind them, loaded only when asked for: the handout has neither. */
function variants(secret: string): Variants {
  // Typed here rather than by its module's types, which the handout does not ship.
  const { loadVariants } = require('../reference/fixtures/variants') as { loadVariants(secret: string): Variants };
  return loadVariants(secret);
}

async function main(): Promise<void> {
  const cases = GRADED_CASES.filter((c) => flags.hidden || !c.hidden);
  const memoryBytes = (flags.memory ?? 2048) * 1024 ** 2;
  const options: GradeOptions = {
    cases,
    fixtures: loadCaseFixtures(cases),
    child: prepareChild(memoryBytes, hiddenFolders()),
    timeoutMs: (flags.timeout ?? 10) * 1000,
    budgetMs: (flags.budget ?? 60) * 1000,
    outputCap: 4096,
    instructorView: Boolean(flags['instructor-view']),
    carryForward: Boolean(flags['carry-forward']),
    ...(flags.variants !== undefined && { variants: variants(flags.variants) }),
  };
  await checkChildStarts(options.child);
  const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  // On a grading server (root) a missing layer of containment is worth a line; on a laptop it is expected.
  if (process.getuid?.() === 0) for (const gap of options.child.missing) console.error(`grade: running without ${gap}`);
  const containment = containmentReport(options.child);

  if (flags.submissions) {
    let roster: RosterEntry[] | undefined;
    try {
      roster = flags.roster ? readRoster(path.resolve(flags.roster)) : undefined;
    } catch (err) {
      if (!(err instanceof RosterError)) throw err;
      console.error(`${err.message}; usage: ${USAGE}`);
      process.exit(2);
    }
    const outcome = await gradeBatch(path.resolve(flags.submissions), path.resolve(flags.out!), {
      ...options,
      jobs: flags.jobs ?? os.availableParallelism(),
      force: Boolean(flags.force),
      html: true,
      memoryBytes,
      shard,
      exports: { roster, assignment: flags.assignment },
      onDone: (result, done, total) => {
        if (color) process.stdout.write(progressLine(done, total, result.name));
        else console.log(doneLine(result));
      },
    });
    if (color) process.stdout.write('\n');
    if (outcome.skipped.length) console.log(`kept ${outcome.skipped.length} earlier result(s) graded with the same options and files; --force regrades them`);
    if ([...outcome.regraded.values()].some((why) => why !== 'new')) console.log(regradeLine(outcome.regraded));
    if (shard) console.log(`shard ${flags.shard}: ${outcome.rows.length} submission(s)`);
    console.log(formatBatchSummary(outcome.entries));
    console.log(containmentLine(containment));
    console.log(`wrote ${path.join(flags.out!, 'grades.csv')} (${outcome.rows.length} rows) and ${path.join(flags.out!, 'report.html')}`);
    console.log(`wrote ${path.join(flags.out!, LONG_CSV)} (one row per submission and test)`);
    if (outcome.canvas) {
      const { said, warned } = canvasLines(outcome.canvas, path.join(flags.out!, CANVAS_CSV));
      console.log(said);
      for (const line of warned) console.error(`grade: ${line}`);
    }
    if (flags.similarity) {
      // Loaded only when asked for: the student handout ships no similarity check.
      // Typed here rather than by its module's types, which the handout does not ship.
      const { DEFAULT_THRESHOLD, runSimilarity } = require('../lib/similarity/run') as {
        DEFAULT_THRESHOLD: number;
        runSimilarity(options: { submissions: string; out: string; base?: string }): Promise<{ flagged: unknown[]; groups: unknown[]; files: { csv: string; html: string } }>;
      };
      const similar = await runSimilarity({ submissions: path.resolve(flags.submissions), out: path.resolve(flags.out!), base: path.join(PROJECT_ROOT, 'student') });
      console.log(`similarity: ${similar.flagged.length} pair(s) at or above ${Math.round(DEFAULT_THRESHOLD * 100)}%, ${similar.groups.length} group(s) of three or more; wrote ${similar.files.csv} and ${similar.files.html}`);
    }
    if (outcome.graderErrors.length) {
      // Their rows say so, but a gradebook with the grader's own failures in it is not a finished run.
      console.error(`grade: the grader itself failed on ${outcome.graderErrors.length} submission(s) (${outcome.graderErrors.map(oneLine).join(', ')}): fix the cause and rerun (only those are graded again)`);
      process.exitCode = 1;
    }
    return;
  }

  const dir = flags.reference ? path.join(PROJECT_ROOT, 'reference') : path.resolve(flags.submission ?? path.join(PROJECT_ROOT, 'student'));
  const name = flags.reference ? 'reference' : path.basename(dir);
  const result = await gradeSubmission(dir, name, { ...options, heatmaps: Boolean(flags.html) });
  console.log(formatTable(result, { color, verbose: Boolean(flags.verbose) }));
  if (flags.verbose) console.log(containmentBlock(containment).join('\n'));
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
