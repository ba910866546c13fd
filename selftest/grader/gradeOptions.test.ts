/**
 * Every option that changes a grade is recorded (lib/batch/options.ts): each grade-changing
 * option's other value changes what a batch records (so a rerun regrades and a merge refuses,
 * naming the flag), and the flags said to change no grade do not change a result when a batch and
 * a single submission are graded with and without them. That `--help` lists no flag in neither
 * list is read from cli.test.ts's run of it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GRADE_OPTIONS, gradeOptionValues, recordOptions } from '../../lib/batch/options';
import { difference, gradedWith } from '../../lib/batch/provenance';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { resultsFile } from '../../lib/report/batchReport';
import { materialize, tempDir } from './materialize';
import { ASSIGNMENT } from '../../tests/assignment';

const grade = (args: string[]) => spawnSync(process.execPath, [RUN_TS, 'scripts/grade.ts', ...args], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 300_000 });

describe('the options that change a grade are one list, and a batch records each', () => {
  it.each(GRADE_OPTIONS.map((o) => o.flag))('--%s: another value is recorded, and a rerun or a merge names it', (flag) => {
    const option = GRADE_OPTIONS.find((o) => o.flag === flag)!;
    const defaults = gradeOptionValues({}, ASSIGNMENT);
    const changed = gradeOptionValues({ [flag]: typeof option.example === 'function' ? option.example(tempDir(`option-${flag}`)) : option.example }, ASSIGNMENT);
    if (typeof defaults === 'string' || typeof changed === 'string') throw new Error(String(typeof defaults === 'string' ? defaults : changed));
    expect(recordOptions(changed)).not.toEqual(recordOptions(defaults));
    const said = difference(gradedWith(changed, changed.cases, {}), gradedWith(defaults, defaults.cases, {}));
    expect(said).toMatch(new RegExp(`^--${flag} `));
  });

  it('a value the option cannot take is one line naming the flag, not a silent default', () => {
    expect(gradeOptionValues({ 'late-policy': 'per=week' }, ASSIGNMENT)).toMatch(/^--late-policy/);
    expect(gradeOptionValues({ 'late-policy': 'per=day,penalty=10%' }, ASSIGNMENT)).toMatch(/^--late-policy needs due=TIME/);
  });
});

describe('the flags said to change no grade change no result', () => {
  const root = tempDir('grade-options');
  const submissions = path.join(root, 'submissions');
  const out = (name: string) => path.join(root, name);
  /** A result without what differs from run to run: the time it took. */
  const stable = (file: string) => ({ ...JSON.parse(fs.readFileSync(file, 'utf8')), execution_time: 0 });

  beforeAll(() => {
    materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'good');
    materialize(path.join(__dirname, '..', 'catalogue', 'bugs', 'mhsa_on_broken_attention.ts'), submissions, 'broken');
    fs.writeFileSync(path.join(root, 'roster.csv'), 'submission,id\ngood,1\n');
  });

  it('a batch: --jobs, --force, --shard 1/1, --roster and --assignment', () => {
    const plain = grade(['--submissions', submissions, '--out', out('plain'), '--timeout', '30']);
    expect(plain.status, plain.stderr).toBe(0);
    const flagged = grade(['--submissions', submissions, '--out', out('flagged'), '--timeout', '30',
      '--jobs', '1', '--force', '--shard', '1/1', '--roster', path.join(root, 'roster.csv'), '--assignment', 'A (1)']);
    expect(flagged.status, flagged.stderr).toBe(0);
    for (const name of ['good', 'broken']) expect(stable(path.join(out('flagged'), resultsFile(name))), name).toEqual(stable(path.join(out('plain'), resultsFile(name))));
  });

  it('one submission: --html, --verbose and --instructor-view', () => {
    const one = path.join(submissions, 'broken');
    const plain = grade(['--submission', one, '--hidden', '--json', out('plain.json')]);
    expect(plain.status, plain.stderr).toBe(0);
    const flagged = grade(['--submission', one, '--hidden', '--json', out('flagged.json'), '--html', out('page.html'), '--verbose', '--instructor-view']);
    expect(flagged.status, flagged.stderr).toBe(0);
    expect(stable(out('flagged.json'))).toEqual(stable(out('plain.json')));
  });
});
