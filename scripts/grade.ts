/**
 * npm run grade [-- flags]: point totals for a submission, or for a folder of them. The flags are
 * described in HELP below (`npm run grade -- --help`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exitWithUsage, parseFlags } from '../lib/cli';
import { GraderError, FixtureError } from '../lib/errors';
import { writeFileAtomic } from '../lib/fsAtomic';
import { BatchInputError, checkBatchInputs } from '../lib/batch/inputs';
import { fileStem, GRADES_CSV, SUBMISSIONS_DIR } from '../lib/report/layout';
import { regradeLine } from '../lib/batch/resume';
import { parseShard, type Shard } from '../lib/batch/shard';
import { gradeBatch } from '../lib/batch/gradeBatch';
import { checkChildStarts, gradeSubmission, loadCaseFixtures, prepareChild, type GradeOptions } from '../lib/grading/grade';
import { IS_HANDOUT, PAGES_DIR } from '../lib/paths';
import { writeGithubOutputs } from '../lib/report/github';
import { toGradescope } from '../lib/report/gradescope';
import { containmentBlock, containmentLine } from '../lib/report/containment';
import { submissionPage } from '../lib/report/submissionPage';
import { containmentReport } from '../lib/sandbox/containment';
import { formatBatchSummary, formatTable } from '../lib/report/terminal';
import { BatchProgress, progressMode } from '../lib/report/progress';
import { oneLine, showName } from '../lib/text/sanitise';
import { GRADE_OPTIONS, gradeFlagKinds, gradeOptionValues, type OptionValues } from '../lib/batch/options';
import { interruptedLine, SIGNAL_EXIT_CODE } from '../lib/batch/interrupt';
import { extendedDueTimes } from '../lib/late/extensions';
import { withLatePenalty } from '../lib/late/policy';
import { matchTimes, readTimesFile, TimesError, type SubmissionTime } from '../lib/late/times';
import { CANVAS_CSV, canvasLines, LONG_CSV } from '../lib/report/exports';
import { readRoster, RosterError, type RosterEntry } from '../lib/late/roster';
import type { Variants } from '../lib/model/variants';
import { loadAssignment } from '../lib/grading/loadAssignment';

// In the student handout (no reference/, no hidden fixtures, no similarity check) the flags that
// need instructor files, or only make sense for a course, are neither listed nor accepted: --help
// shows only what works there.
const INSTRUCTOR_FLAGS = ['reference', 'instructor-view', 'similarity', 'times', ...GRADE_OPTIONS.filter((o) => o.instructorOnly).map((o) => o.flag)];
const FOR_INSTRUCTORS = (flag: string) => IS_HANDOUT && INSTRUCTOR_FLAGS.includes(flag);

const USAGE = IS_HANDOUT
  ? 'npm run grade -- [--submission DIR | --submissions DIR --out DIR2 [--jobs N] [--force] [--shard i/n] [--roster FILE [--assignment NAME]]] [--json FILE] [--html [FILE]] [--verbose] [--timeout S] [--budget S] [--memory MIB]'
  : 'npm run grade -- [--submission DIR | --reference | --submissions DIR --out DIR2 [--jobs N] [--force] [--shard i/n] [--similarity] [--roster FILE [--assignment NAME]]] [--hidden [--variants SECRET]] [--carry-forward] [--late-policy P [--times FILE] [--extensions FILE]] [--json FILE] [--html [FILE]] [--instructor-view] [--verbose] [--timeout S] [--budget S] [--memory MIB]';

/**
 * Each flag's lines of help; the instructor-only ones are left out in the handout. The options that
 * change a grade come from lib/batch/options.ts, which every batch records.
 */
const FLAG_HELP: [flag: string, text: string][] = [
  ['submission', '  --submission DIR   grade DIR (holding index.ts, or student/index.ts) instead of ./student'],
  ['reference', '  --reference        grade the reference (must score full marks)'],
  ['json', "  --json FILE        also write Gradescope's results.json"],
  ['html', `  --html [FILE]      also write a page: the score table, and heatmaps of each failed attention case
                     (FILE, or else pages/<name>.html, which git ignores)`],
  ['instructor-view', "  --instructor-view  pages also show hidden tests' expected values (and say so): not for students"],
  ['verbose', `  --verbose          also show each test's details (every failing check, the student's stack mapped
                     to its own lines), what the submission printed, and the containment in force`],
  ['submissions', `  --submissions DIR --out DIR2 [--jobs N] [--force] [--shard i/n]
                     batch: every subfolder of DIR; writes DIR2/grades.csv, DIR2/grades-long.csv (submission,
                     test, points, max, status, cause_id, cause), DIR2/submissions/<stem>.json,
                     DIR2/submissions/<stem>.html (<stem>: the name when it is plain lowercase, else a slug
                     and a hash of it, listed in batch.json), DIR2/report.html and DIR2/batch.json (what it
                     was graded with); a rerun regrades only what no longer matches (--force: everything);
                     --shard i/n grades only shard i of n (npm run merge joins the shards). Ctrl-C or
                     SIGTERM stops it with the gradebook of what finished; the same command resumes`],
  ['similarity', `  --similarity       with --submissions: also compares the submissions' code with each other
                     (DIR2/similarity.csv and DIR2/similarity.html; the same as npm run similarity)`],
  ['roster', `  --roster FILE      with --submissions: also DIR2/canvas.csv, Canvas's gradebook import, for the
                     students of FILE: Canvas's gradebook export as it comes (each folder found by a
                     student's SIS Login ID, SIS User ID or ID), or a CSV with a submission column
                     (and student, id, sis_user_id, sis_login_id, section); names match ignoring case
                     and spaces; submissions it does not name are listed and marked in canvas.csv`],
  ['assignment', '  --assignment NAME  the Canvas column: "<name> (<id>)" of an existing assignment, or a new one\'s name'],
  ...GRADE_OPTIONS.map((o): [string, string] => [o.flag, o.help]),
  ['times', `  --times FILE       with --late-policy: when each submission was handed in, a CSV with the header
                     submission,submitted_at (ISO 8601 with its zone); it comes before the fetched commits' times`],
  ['help', '  --help             this text'],
];

const HELP = `Grades a submission on the graded cases of tests/cases.ts: its code runs in a contained child
process, this one checks the answers and awards the points.

usage: ${USAGE}

${FLAG_HELP.filter(([flag]) => !FOR_INSTRUCTORS(flag)).map(([, text]) => text).join('\n')}

Exits 0 whenever it produced a result, whatever the score; 1 when it could not grade; 2 on a
usage error (a flag, a folder that does not exist); 130 or 143 when Ctrl-C or SIGTERM stopped a batch.`;
const flags = parseFlags(process.argv.slice(2), gradeFlagKinds(), USAGE, HELP) as Record<string, string | number | boolean | undefined> & {
  submission?: string; reference?: boolean; json?: string; html?: string | true; 'instructor-view'?: boolean; verbose?: boolean;
  submissions?: string; out?: string; jobs?: number; force?: boolean; shard?: string; similarity?: boolean; roster?: string; assignment?: string; times?: string;
};

function usage(problem: string): never {
  return exitWithUsage(problem, USAGE);
}

for (const flag of INSTRUCTOR_FLAGS) {
  if (FOR_INSTRUCTORS(flag) && flags[flag]) usage(`--${flag} is for instructors: this handout has no reference solution, hidden tests or similarity check (grade your own work with npm run grade)`);
}
const assignment = loadAssignment();
const chosen = gradeOptionValues(flags, assignment);
if (typeof chosen === 'string') usage(chosen);
if (flags.times && !chosen.latePolicy) usage('--times gives the submission times a late policy needs: pass --late-policy too');
if (chosen.extensions && !chosen.latePolicy) usage("--extensions gives students' own due times under a late policy: pass --late-policy too");

if (chosen.variantsSecret !== undefined && !flags.hidden) usage('--variants draws the hidden cases: pass --hidden too');
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
if (flags.submissions && flags.json) usage('--json is for one submission; a batch writes DIR2/submissions/<stem>.json');
if (flags.submissions && flags.html) usage('--html is for one submission; a batch always writes DIR2/submissions/<stem>.html and DIR2/report.html');
if (flags.submissions && flags.verbose) usage('--verbose is for one submission: grade one alone with --submission DIR/<name> --verbose');

/** A folder named on the command line that is not there is the command's mistake, not a student's result. */
function requireFolder(flag: string, dir: string | undefined, what: string): void {
  if (dir === undefined || fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
  console.error(`grade: --${flag} ${dir}: ${fs.existsSync(dir) ? 'not a folder' : 'no such folder'}; pass ${what}`);
  process.exit(2);
}
requireFolder('submission', flags.submission, 'the folder that holds index.ts (or student/index.ts)');
requireFolder('submissions', flags.submissions, 'a folder with one subfolder per submission');

/** A batch's folders, checked before anything runs (lib/batch/inputs.ts): a mistake is the command's, one line, exit 2. */
function checkBatchFolders(submissions: string, out: string): void {
  try {
    const { leftOut } = checkBatchInputs(submissions, out);
    if (leftOut.length) console.error(`grade: left out ${leftOut.map(showName).join(', ')} of ${showName(submissions)}: ${leftOut.length === 1 ? 'it holds' : 'each holds'} a batch's results (${GRADES_CSV} beside ${SUBMISSIONS_DIR}/), not a submission`);
  } catch (err) {
    if (!(err instanceof BatchInputError)) throw err;
    console.error(`grade: ${err.message}`);
    process.exit(2);
  }
}
if (flags.submissions) checkBatchFolders(flags.submissions, flags.out!);

/**
 * --similarity subtracts the handout's stubs as committed (lib/similarity/handout.ts), read before
 * anything is graded: a run that cannot have them stops here, with the reason. Loaded only when
 * asked for, and typed here: the student handout ships no similarity check.
 */
function similarityHandout(): { described: string } | undefined {
  if (!flags.similarity) return undefined;
  const { committedStubs } = require('../lib/similarity/handout') as { committedStubs(): { described: string } };
  try {
    return committedStubs();
  } catch (err) {
    console.error(`grade: --similarity: ${oneLine((err as Error).message)}; or run npm run similarity -- --submissions DIR --out DIR2 --base DIR`);
    process.exit(2);
  }
}
const handout = similarityHandout();

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

/** --times FILE, read now: a file that cannot be used is the command's mistake. */
function timesFlag(): Map<string, number> | undefined {
  if (!flags.times) return undefined;
  try {
    return readTimesFile(path.resolve(flags.times));
  } catch (err) {
    if (!(err instanceof TimesError)) throw err;
    return usage(err.message);
  }
}
const times = timesFlag();

/** The draws and the reference behind them, loaded only when asked for: the handout has neither. */
function variants(secret: string): Variants {
  // Typed here rather than by its module's types, which the handout does not ship.
  const { loadVariants } = require('../reference/fixtures/variants') as { loadVariants(secret: string): Variants };
  return loadVariants(secret);
}

async function main(chosen: OptionValues): Promise<void> {
  const memoryBytes = chosen.memoryBytes!;
  const options: GradeOptions & OptionValues = {
    ...chosen,
    assignment,
    fixtures: loadCaseFixtures(assignment, chosen.cases),
    child: prepareChild(memoryBytes, hiddenFolders()),
    outputCap: 4096,
    instructorView: Boolean(flags['instructor-view']),
    variants: chosen.variantsSecret === undefined ? undefined : variants(chosen.variantsSecret),
  };
  await checkChildStarts(options.child, Boolean(flags.submissions));
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
      usage(oneLine(err.message));
    }
    const jobs = flags.jobs ?? os.availableParallelism();
    const progress = new BatchProgress(process.stdout, progressMode(process.stdout));
    const outcome = await gradeBatch(path.resolve(flags.submissions), path.resolve(flags.out!), {
      ...options,
      jobs,
      force: Boolean(flags.force),
      html: true,
      shard,
      times,
      interruptible: true,
      exports: { roster, assignment: flags.assignment },
      onStart: (total, kept) => progress.start(total, kept, jobs),
      onDone: (result, done) => progress.finished(result, done),
    }).finally(() => progress.stop());
    for (const group of outcome.lookalikes) {
      console.error(`grade: ${group.map(showName).join(', ')} differ only by case, spaces or Unicode form: each is graded as its own submission`);
    }
    if (outcome.timesUnmatched.length) console.error(`grade: --times names ${outcome.timesUnmatched.length} submission(s) not in ${showName(flags.submissions)}: ${outcome.timesUnmatched.join(', ')}`);
    if (outcome.extensionsUnmatched.length) {
      console.error(`grade: --extensions names ${outcome.extensionsUnmatched.length} student(s) with no submission in ${showName(flags.submissions)}, so their extension applies to none: ${outcome.extensionsUnmatched.join(', ')}`);
    }
    if (outcome.untimed.length) {
      console.error(`grade: no submission time for ${outcome.untimed.length} submission(s), so no late penalty (their rows say so): ${outcome.untimed.map(showName).join(', ')}; give them in --times FILE`);
    }
    if (outcome.interrupted) {
      console.log(formatBatchSummary(outcome.entries));
      console.log(`wrote ${path.join(flags.out!, 'grades.csv')} (${outcome.rows.length} rows) and ${path.join(flags.out!, 'report.html')}`);
      console.error(interruptedLine(outcome.interrupted.graded, outcome.interrupted.of));
      process.exit(SIGNAL_EXIT_CODE[outcome.interrupted.signal]);
    }
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
    if (handout) {
      // Typed here rather than by its module's types, which the handout does not ship.
      const { DEFAULT_THRESHOLD, runSimilarity } = require('../lib/similarity/run') as {
        DEFAULT_THRESHOLD: number;
        runSimilarity(options: { submissions: string; out: string; handout: typeof handout }): Promise<{ flagged: unknown[]; groups: unknown[]; notCompared: { name: string; problem: string }[]; files: { csv: string; html: string } }>;
      };
      const similar = await runSimilarity({ submissions: path.resolve(flags.submissions), out: path.resolve(flags.out!), handout });
      console.log(`similarity: ${similar.flagged.length} pair(s) at or above ${Math.round(DEFAULT_THRESHOLD * 100)}%, ${similar.groups.length} group(s) of three or more `
        + `(handout subtracted: ${handout.described}); wrote ${similar.files.csv} and ${similar.files.html}`);
      for (const s of similar.notCompared) console.log(`similarity: not compared: ${oneLine(s.name)}: ${oneLine(s.problem)}`);
    }
    if (outcome.graderErrors.length) {
      // Their rows say so, but a gradebook with the grader's own failures in it is not a finished run.
      console.error(`grade: the grader itself failed on ${outcome.graderErrors.length} submission(s) (${outcome.graderErrors.map(oneLine).join(', ')}): fix the cause and rerun (only those are graded again)`);
      process.exitCode = 1;
    }
    return;
  }

  const dir = flags.reference ? path.join(assignment.root, 'reference') : path.resolve(flags.submission ?? path.join(assignment.root, 'student'));
  const name = flags.reference ? 'reference' : path.basename(dir);
  const graded = await gradeSubmission(dir, name, { ...options, heatmaps: Boolean(flags.html) });
  const result = options.latePolicy ? withLatePenalty(graded, options.latePolicy, singleTime(name, chosen)) : graded;
  if (result.late?.submitted_at === null) console.error(`grade: no submission time for ${showName(name)}, so no late penalty: give it in --times FILE`);
  console.log(formatTable(result, { color, verbose: Boolean(flags.verbose) }));
  if (result.late) console.log(`Late policy: ${result.late.note}`);
  if (flags.verbose) console.log(containmentBlock(containment).join('\n'));
  if (flags.json) writeFileAtomic(path.resolve(flags.json), `${JSON.stringify(toGradescope(result), null, 2)}\n`);
  if (flags.html) {
    const page = flags.html === true ? path.join(PAGES_DIR, `${fileStem(name)}.html`) : path.resolve(flags.html);
    fs.mkdirSync(path.dirname(page), { recursive: true });
    writeFileAtomic(page, submissionPage(result, assignment.cases, assignment.page));
    console.log(`wrote ${path.relative(process.cwd(), page) || page}: open it in a browser`);
  }
  if (process.env.GITHUB_ACTIONS) console.log(writeGithubOutputs(result));
}

/** One submission's time: its row of --times, and its own due time in --extensions, each matched by its folder's name. */
function singleTime(name: string, chosen: OptionValues): SubmissionTime {
  const submittedMs = times ? matchTimes([name], times).times.get(name) : undefined;
  const policyDue = chosen.latePolicy?.dueMs;
  const extendedMs = chosen.extensions && policyDue !== undefined ? extendedDueTimes(chosen.extensions, [name], policyDue).dueOf.get(name) : undefined;
  return { ...(submittedMs === undefined ? { source: null } : { submittedMs, source: 'times' }), ...(extendedMs !== undefined ? { extendedMs } : {}) };
}

main(chosen).catch((err: unknown) => {
  const known = err instanceof GraderError || err instanceof FixtureError;
  console.error(`grade: could not grade: ${known ? (err as Error).message : (err as Error)?.stack ?? String(err)}`);
  process.exit(1);
});
