/**
 * npm run grade as users call it: full marks with --json for the reference, a results.json that
 * Gradescope's spec accepts, GitHub Actions outputs, and one-line refusals of bad flags.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, TS_NODE_BIN } from '../../lib/paths';
import schema from '../../lib/report/gradescope.schema.json';
import { GRADED_CASES, visibleCases } from '../../tests/cases';
import { tempDir } from './materialize';

const work = tempDir('cli');
/** A batch of one submission, for refusals that come after the folders are checked. */
const batch = path.join(work, 'batch');
fs.mkdirSync(path.join(batch, 'alice'), { recursive: true });
const empty = path.join(work, 'empty');
fs.mkdirSync(empty);
const grade = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [TS_NODE_BIN, 'scripts/grade.ts', ...args], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_ACTIONS: '', ...env },
  });

/**
 * The reference graded once, in GitHub Actions (its environment as a workflow sets it), with
 * --json: its table, results.json, job summary and notice are each read by a test below.
 */
const summary = path.join(work, 'summary.md');
let referenceRun: ReturnType<typeof grade> | undefined;
const gradedReference = () => (referenceRun ??= grade(['--reference', '--json', path.join(work, 'r.json')], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary }));

describe('npm run grade', () => {
  it('--reference --json gives full marks in a results.json that follows the spec', () => {
    const file = path.join(work, 'r.json');
    const run = gradedReference();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Total: 12\/12/);
    // The reference's own files only: its instructor tooling (mistakes.ts, fixtures/) is not the submission.
    expect(run.stdout).not.toMatch(/Type errors/);
    const results = JSON.parse(fs.readFileSync(file, 'utf8'));
    const validate = new Ajv({ strict: false }).compile(schema);
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
    expect(results.score).toBe(12);
    expect(results.max_score).toBe(12);
    expect(results.tests).toHaveLength(visibleCases().length);
  });

  it('--hidden adds the hidden cases, visible only after publishing', () => {
    const file = path.join(work, 'h.json');
    expect(grade(['--reference', '--hidden', '--json', file]).status).toBe(0);
    const results = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(results.score).toBe(14.5);
    expect(results.tests.filter((t: { visibility: string }) => t.visibility === 'after_published')).toHaveLength(GRADED_CASES.filter((c) => c.hidden).length);
  });

  it('gives the stubs 0 with "not implemented" reasons, exit 0', () => {
    const run = grade([]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Total: 0\/12/);
    expect(run.stdout).toMatch(/softmax is not implemented yet: edit student\/index\.ts/);
  });

  it('in GitHub Actions, writes the job summary and a Points notice', () => {
    const run = gradedReference();
    expect(run.stdout).toMatch(/^::notice title=Points::Points 12\/12$/m);
    expect(fs.readFileSync(summary, 'utf8')).toMatch(/12\/12 points[\s\S]*test\\_scaled\\_dot\\_product\\_attention/);
  });

  it.each([
    [['--frobnicate'], /unknown flag --frobnicate/],
    [['--submission'], /--submission needs a value/],
    [['--submissions', 'x'], /--submissions needs --out/],
    [['--reference', '--submission', 'x'], /pick one/],
    [['--timeout', 'soon'], /--timeout needs a positive number/],
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

  it('every command parses with the same parser: a slip in another command\'s flag gets its did-you-mean', () => {
    const run = spawnSync(process.execPath, [TS_NODE_BIN, 'scripts/release.ts', '--otu', 'x'], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('unknown flag --otu: did you mean --out?\nusage: npm run release -- --out DIR\n');
  });

  it.each([
    [['--submission', 'nowhere'], 'grade: --submission nowhere: no such folder; pass the folder that holds index.ts (or student/index.ts)'],
    [['--submissions', 'nowhere', '--out', 'x'], 'grade: --submissions nowhere: no such folder; pass a folder with one subfolder per submission'],
    [['--submission', 'package.json'], 'grade: --submission package.json: not a folder; pass the folder that holds index.ts (or student/index.ts)'],
    // Checked before anything runs: no child, no --out folder made.
    [['--submissions', empty, '--out', path.join(work, 'never')], `grade: --submissions ${empty} holds no submission: each submission is a subfolder of it (<name>/index.ts)`],
    [['--submissions', 'student', '--out', path.join(work, 'never')],
      'grade: --submissions student holds index.ts itself: it is one submission; grade it with --submission student (--submissions takes a folder with one subfolder per submission)'],
    [['--submissions', batch, '--out', path.join(batch, 'grades')], `grade: --out ${path.join(batch, 'grades')} is inside --submissions ${batch}: the next run would grade the results as a submission; put --out outside it`],
  ])('refuses %j: one line naming the folder and the fix, exit 2', (args, line) => {
    const run = grade(args);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(`${line}\n`);
    expect(run.stdout).toBe('');
    expect(fs.existsSync(path.join(work, 'never'))).toBe(false);
  });

  it('--help prints the usage and every flag, exit 0', () => {
    const run = grade(['--help']);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^usage: npm run grade -- /m);
    for (const flag of ['submission', 'reference', 'hidden', 'json', 'html', 'verbose', 'submissions', 'timeout', 'budget', 'memory', 'help']) {
      expect(run.stdout, flag).toMatch(new RegExp(`^  --${flag}\\b`, 'm'));
    }
    expect(grade(['--reference', '-h']).stdout).toBe(run.stdout);
  });

  it('--verbose adds what the submission printed and its stack, at its own line', () => {
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
    const plain = grade(['--submission', dir]);
    const verbose = grade(['--submission', dir, '--verbose']);
    expect([plain.status, verbose.status]).toEqual([0, 0]);
    expect(plain.stdout).not.toMatch(/printed:|building a mask/);
    const block = verbose.stdout.slice(verbose.stdout.indexOf('test_causal_mask '));
    expect(block).toMatch(/^test_causal_mask .* error +Error: mask not ready\n {4}details:\n[\s\S]*at (?:Object\.)?causalMask \(chatty\/index\.ts:5:\d+\)[\s\S]*\n {4}printed:\n {6}building a mask of 5\n/);
  });
});
