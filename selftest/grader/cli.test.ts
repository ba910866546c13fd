/**
 * npm run grade as users call it: full marks with --json for the reference, a results.json that
 * Gradescope's spec accepts, GitHub Actions outputs, and one-line refusals of bad flags. Each run
 * starts a process; a refusal whose words come from the shared parser (lib/cli.ts) is read from the
 * parser with the grade command's own flags, and the command line once shows that its refusals are
 * printed that way (so is -h, --help's other name). The stubs graded by the command are
 * classroomDocs.test.ts's (npm run grade in a student's install of the handout) and their result
 * outcomes.test.ts's golden one.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it, vi } from 'vitest';
import { GRADE_OPTIONS, gradeFlagKinds, OTHER_FLAGS } from '../../lib/batch/options';
import { parseFlags, parseFlagsOrThrow } from '../../lib/cli';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import schema from '../../lib/report/gradescope.schema.json';
import { formatTable } from '../../lib/report/terminal';
import { GRADED_CASES, visibleCases } from '../../tests/cases';
import { grade as gradeInProcess } from './harness';
import { tempDir } from './materialize';

const work = tempDir('cli');
/** A batch of one submission, for refusals that come after the folders are checked. */
const batch = path.join(work, 'batch');
fs.mkdirSync(path.join(batch, 'alice'), { recursive: true });
const empty = path.join(work, 'empty');
fs.mkdirSync(empty);
const grade = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [RUN_TS, 'scripts/grade.ts', ...args], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_ACTIONS: '', ...env },
  });

/**
 * The reference graded once, hidden cases included, in GitHub Actions (its environment as a
 * workflow sets it), with --json: its table, results.json, job summary and notice are each read by
 * a test below. Full marks on every case, visible and hidden, are full marks on the visible ones.
 */
const summary = path.join(work, 'summary.md');
const referenceJson = path.join(work, 'r.json');
let referenceRun: ReturnType<typeof grade> | undefined;
const gradedReference = () => (referenceRun ??= grade(['--reference', '--hidden', '--json', referenceJson], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary }));
let helpRun: ReturnType<typeof grade> | undefined;
/** `npm run grade -- --help`, run once for the tests that read it. */
const help = () => (helpRun ??= grade(['--help']));

/** What the shared parser refuses, given the grade command's flags. */
function parserProblem(args: string[]): string {
  try {
    parseFlagsOrThrow(args, gradeFlagKinds(), { script: 'grade', env: {} });
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}

describe('npm run grade', () => {
  it('--reference --json gives full marks in a results.json that follows the spec', () => {
    const run = gradedReference();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Total: 14\.5\/14\.5/);
    // The reference's own files only: its instructor tooling (mistakes.ts, fixtures/) is not the submission.
    expect(run.stdout).not.toMatch(/Type errors/);
    const results = JSON.parse(fs.readFileSync(referenceJson, 'utf8'));
    const validate = new Ajv({ strict: false }).compile(schema);
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
    expect(results.score).toBe(14.5);
    expect(results.max_score).toBe(14.5);
    const visible = results.tests.filter((t: { visibility: string }) => t.visibility === 'visible');
    expect(visible).toHaveLength(visibleCases().length);
    expect(visible.reduce((sum: number, t: { score: number }) => sum + t.score, 0)).toBe(12);
  });

  it('--hidden adds the hidden cases, visible only after publishing', () => {
    const results = JSON.parse(fs.readFileSync((gradedReference(), referenceJson), 'utf8'));
    expect(results.tests.filter((t: { visibility: string }) => t.visibility === 'after_published')).toHaveLength(GRADED_CASES.filter((c) => c.hidden).length);
    expect(results.tests).toHaveLength(GRADED_CASES.length);
  });

  it('in GitHub Actions, writes the job summary and a Points notice', () => {
    const run = gradedReference();
    expect(run.stdout).toMatch(/^::notice title=Points::Points 14\.5\/14\.5$/m);
    expect(fs.readFileSync(summary, 'utf8')).toMatch(/14\.5\/14\.5 points[\s\S]*test\\_scaled\\_dot\\_product\\_attention/);
  });

  it.each([
    [['--frobnicate'], 'unknown flag --frobnicate'],
    [['--submission'], '--submission needs a value'],
    [['--timeout', 'soon'], '--timeout needs a positive number, got "soon"'],
    [['--submision', 'x'], 'unknown flag --submision: did you mean --submission?'],
  ])('the parser refuses %j with its own words (the command prints them as below)', (args, message) => {
    expect(parserProblem(args)).toBe(message);
  });

  it.each([
    [['--submissions', 'x'], /--submissions needs --out/],
    [['--reference', '--submission', 'x'], /pick one/],
    [['--reference', '--roster', 'r.csv'], /--roster and --assignment go with --submissions/],
    [['--submissions', batch, '--out', path.join(work, 'roster-out'), '--roster', 'nowhere.csv'], /roster .*nowhere\.csv cannot be read \(ENOENT\): pass --roster FILE/],
    [['--submision', 'x'], /^unknown flag --submision: did you mean --submission\?$/],
  ])('refuses %j in one line, the usage on the next, exit 2', (args, message) => {
    const run = grade(args);
    expect(run.status).toBe(2);
    const [problem, usage, ...more] = run.stderr.trim().split('\n');
    expect(problem).toMatch(message);
    expect(usage).toMatch(/^usage: npm run grade -- \[/);
    expect(more).toEqual([]);
  });

  it('a flag npm kept for itself (npm run grade --html page.html, no --): the command as meant, exit 2', () => {
    const run = grade(['page.html'], { npm_lifecycle_event: 'grade', npm_config_html: 'true' });
    expect(run.status).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe('npm took --html as its own setting (the -- after npm run grade is missing): did you mean npm run grade -- --html page.html');
  });

  // The check itself is lib/model's (fixtureFiles.test.ts); this is the command's wiring: the
  // fixtures are read before a child starts, so no student code runs on a tampered one.
  it('a tampered fixture: exit 1 before anything is graded, the file (from its assignment\'s folder) and the fix in one line', () => {
    const copy = path.join(work, 'norms-tampered');
    fs.cpSync(path.join(PROJECT_ROOT, 'selftest', 'assignments', 'norms'), copy, { recursive: true, verbatimSymlinks: true });
    fs.rmSync(path.join(copy, 'lib'));
    fs.symlinkSync(path.join(PROJECT_ROOT, 'lib'), path.join(copy, 'lib'));
    fs.appendFileSync(path.join(copy, 'fixtures', 'top_k_2d', 'expected_values.npy'), '\0');
    const json = path.join(work, 'tampered.json');
    const run = grade(['--reference', '--json', json], { GRADER_ASSIGNMENT: copy });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^grade: could not grade: norms-tampered\/fixtures\/top_k_2d\/expected_values\.npy: sha256 does not match fixtures\/manifest\.json \(the file was changed\); restore it with `git checkout fixtures`/)]);
    expect(run.stdout).toBe('');
    expect(fs.existsSync(json)).toBe(false);
  });

  it('every command parses with the same parser: a slip in another command\'s flag gets its did-you-mean', () => {
    const run = spawnSync(process.execPath, [RUN_TS, 'scripts/release.ts', '--otu', 'x'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('unknown flag --otu: did you mean --out?\nusage: npm run release -- --out DIR\n');
  });

  it.each([
    [['--submission', 'nowhere'], 'grade: --submission nowhere: no such folder; pass the folder that holds index.ts (or student/index.ts)'],
    [['--submissions', 'nowhere', '--out', 'x'], 'grade: --submissions nowhere: no such folder; pass a folder with one subfolder per submission'],
    [['--submission', 'package.json'], 'grade: --submission package.json: not a folder; pass the folder that holds index.ts (or student/index.ts)'],
    // Checked before anything runs: no child, no --out folder made. Every other refusal of the folders
    // (lib/batch/inputs.ts) is printed the same way; lib/batch/inputs.test.ts holds their words.
    [['--submissions', empty, '--out', path.join(work, 'never')], `grade: --submissions ${empty} holds no submission: each submission is a subfolder of it (<name>/index.ts)`],
  ])('refuses %j: one line naming the folder and the fix, exit 2', (args, line) => {
    const run = grade(args);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`${line}\n`);
    expect(run.stdout).toBe('');
    expect(fs.existsSync(path.join(work, 'never'))).toBe(false);
  });

  it('--help prints the usage and every flag, exit 0', () => {
    const run = help();
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^usage: npm run grade -- /m);
    for (const flag of ['submission', 'reference', 'hidden', 'json', 'html', 'verbose', 'submissions', 'timeout', 'budget', 'memory', 'help']) {
      expect(run.stdout, flag).toMatch(new RegExp(`^  --${flag}\\b`, 'm'));
    }
    // -h is --help, beside any other flag: the same text, exit 0 (lib/cli.ts parseFlags, every command's).
    const printed = (argv: string[]) => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      const exit = vi.spyOn(process, 'exit').mockImplementation(((code: number) => {
        throw new Error(`exit ${code}`);
      }) as never);
      try {
        expect(() => parseFlags(argv, gradeFlagKinds(), 'npm run grade -- [flags]', run.stdout)).toThrow('exit 0');
        return log.mock.calls;
      } finally {
        log.mockRestore();
        exit.mockRestore();
      }
    };
    expect(printed(['--reference', '-h'])).toEqual(printed(['--help']));
    expect(printed(['--submission', 'x', '-h'])).toEqual([[run.stdout]]);
  });

  // The table the command prints is formatTable's (lib/report/terminal.ts): without --verbose it is
  // read from the same submission graded here, in process; --verbose through the command.
  it('--verbose adds what the submission printed and its stack, at its own line', async () => {
    const dir = path.join(work, 'chatty');
    fs.mkdirSync(dir);
    fs.copyFileSync(path.join(PROJECT_ROOT, 'selftest', 'catalogue', 'bugs', 'base.ts'), path.join(dir, 'base.ts'));
    fs.writeFileSync(path.join(dir, 'index.ts'), [
      "export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';",
      '',
      'export function causalMask(seqLen: number): never {',
      '  console.log(`building a mask of ${seqLen}`);',
      "  throw new Error('mask not ready');",
      '}',
      '',
    ].join('\n'));
    const verbose = grade(['--submission', dir, '--verbose']);
    expect(verbose.status, verbose.stderr).toBe(0);
    const result = await gradeInProcess(dir, 'chatty');
    expect(formatTable(result, { color: false, verbose: true })).toMatch(/printed:\n {6}building a mask of 5\n/);
    expect(formatTable(result, { color: false })).not.toMatch(/printed:|building a mask/);
    const block = verbose.stdout.slice(verbose.stdout.indexOf('test_causal_mask '));
    expect(block).toMatch(/^test_causal_mask .* error +Error: mask not ready\n {4}details:\n[\s\S]*at (?:Object\.)?causalMask \(chatty\/index\.ts:5:\d+\)[\s\S]*\n {4}printed:\n {6}building a mask of 5\n/);
  });
});

describe('the options that change a grade are one list, and a batch records each', () => {
  it("every flag of `npm run grade -- --help` is either recorded or said to change no grade, and --help lists them all", () => {
    const run = help();
    expect(run.status, run.stderr).toBe(0);
    const listed = [...new Set([...run.stdout.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]))].sort();
    const known = [...GRADE_OPTIONS.map((o) => o.flag), ...Object.keys(OTHER_FLAGS)].sort();
    expect(listed).toEqual(known);
    expect(GRADE_OPTIONS.filter((o) => o.flag in OTHER_FLAGS)).toEqual([]);
  });
});
