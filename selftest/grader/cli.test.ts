/**
 * npm run grade as users call it: full marks with --json for the reference, a results.json that
 * Gradescope's spec accepts, GitHub Actions outputs, and one-line refusals of bad flags.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../lib/paths';
import schema from '../../lib/report/gradescope.schema.json';
import { tempDir } from './materialize';

const work = tempDir('cli');
const grade = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [path.join(PROJECT_ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), 'scripts/grade.ts', ...args], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...process.env, GITHUB_ACTIONS: '', ...env },
  });

describe('npm run grade', () => {
  it('--reference --json gives full marks in a results.json that follows the spec', () => {
    const file = path.join(work, 'r.json');
    const run = grade(['--reference', '--json', file]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Total: 12\/12/);
    const results = JSON.parse(fs.readFileSync(file, 'utf8'));
    const validate = new Ajv({ strict: false }).compile(schema);
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
    expect(results.score).toBe(12);
    expect(results.max_score).toBe(12);
    expect(results.tests).toHaveLength(19);
  });

  it('--hidden adds the hidden cases, visible only after publishing', () => {
    const file = path.join(work, 'h.json');
    expect(grade(['--reference', '--hidden', '--json', file]).status).toBe(0);
    const results = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(results.score).toBe(14.5);
    expect(results.tests.filter((t: { visibility: string }) => t.visibility === 'after_published')).toHaveLength(5);
  });

  it('gives the stubs 0 with "not implemented" reasons, exit 0', () => {
    const run = grade([]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Total: 0\/12/);
    expect(run.stdout).toMatch(/softmax is not implemented yet: edit student\/index\.ts/);
  });

  it('in GitHub Actions, writes the job summary and a Points notice', () => {
    const summary = path.join(work, 'summary.md');
    const run = grade(['--reference'], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    expect(run.stdout).toMatch(/^::notice title=Points::Points 12\/12$/m);
    expect(fs.readFileSync(summary, 'utf8')).toMatch(/12\/12 points[\s\S]*test\\_scaled\\_dot\\_product\\_attention/);
  });

  it.each([
    [['--frobnicate'], /unknown flag --frobnicate/],
    [['--submission'], /--submission needs a value/],
    [['--submissions', 'x'], /--submissions needs --out/],
    [['--reference', '--submission', 'x'], /pick one/],
    [['--timeout', 'soon'], /--timeout needs a positive number/],
  ])('refuses %j in one line, exit 2', (args, message) => {
    const run = grade(args);
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });

  it('names a missing submission folder in its result, exit 0', () => {
    const run = grade(['--submission', path.join(work, 'nowhere')]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/submission folder nowhere not found/);
  });
});
