/**
 * Resuming a batch into the same --out: results that still match what this run grades with are
 * kept, the rest regraded, so the folder always holds one consistent gradebook; the summary closes
 * every run, a fully resumed one too.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gradeBatch, type BatchOptions } from '../../lib/batch/gradeBatch';
import { loadCaseFixtures } from '../../lib/grading/grade';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { GRADED_CASES, visibleCases } from '../../tests/cases';
import { gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';
import { resultsFile } from '../../lib/report/batchReport';
import { csvRecords, parseCsv } from '../../lib/report/exports';
import { ASSIGNMENT } from '../../tests/assignment';

const root = tempDir('resume');
const submissions = path.join(root, 'submissions');
const out = path.join(root, 'out');
const NAMES = ['buggy', 'good', 'no_index'];
const VISIBLE = visibleCases();

let visible: BatchOptions;
let hidden: BatchOptions;

beforeAll(() => {
  materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'good');
  materialize(path.join(__dirname, '..', 'catalogue', 'bugs', 'scale_missing.ts'), submissions, 'buggy');
  fs.mkdirSync(path.join(submissions, 'no_index'));
  visible = { ...gradeOptions({ timeoutMs: 30_000 }), jobs: 2, force: false, html: true };
  hidden = { ...visible, cases: GRADED_CASES, fixtures: loadCaseFixtures(ASSIGNMENT, GRADED_CASES) };
});

const header = () => parseCsv(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'))[0];
const maxima = () => csvRecords(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8')).map((r) => r.max);
const recorded = (name: string) => JSON.parse(fs.readFileSync(path.join(out, resultsFile(name)), 'utf8')).extra_data.graded_with;

describe('resuming a batch', () => {
  it('records what each result was graded with', async () => {
    const first = await gradeBatch(submissions, out, visible);
    expect(first.graded.map((r) => r.name).sort()).toEqual(NAMES);
    const good = recorded('good');
    expect(good.options).toEqual({ hidden: false, timeout_ms: 30_000, budget_ms: 60_000, memory_mib: 2048 });
    expect(good.cases).toMatch(/^[0-9a-f]{64}$/);
    expect(good.fixtures).toMatch(/^[0-9a-f]{64}$/);
    expect(good.submission).toMatch(/^[0-9a-f]{64}$/);
    expect(recorded('buggy').submission).not.toBe(good.submission);
    expect(recorded('no_index').submission).toMatch(/^refused:[0-9a-f]{64}$/);
  });

  it('keeps everything when nothing changed, and the summary still covers every submission', async () => {
    const again = await gradeBatch(submissions, out, visible);
    expect(again.graded).toEqual([]);
    expect(again.skipped.sort()).toEqual(NAMES);
    expect(again.entries.map((e) => [e.name, e.score])).toEqual([['buggy', 7], ['good', 12], ['no_index', 0]]);
  });

  it('regrades everything graded with other options: never 12 and 14.5 under one header', async () => {
    const timeout = await gradeBatch(submissions, out, { ...visible, timeoutMs: 20_000 });
    expect([...timeout.regraded.values()]).toEqual(['other_options', 'other_options', 'other_options']);

    const withHidden = await gradeBatch(submissions, out, hidden);
    expect([...withHidden.regraded.values()]).toEqual(['other_options', 'other_options', 'other_options']);
    expect(header()).toEqual(['name', ...GRADED_CASES.map((c) => c.name), 'total', 'max', 'status']);
    expect(maxima()).toEqual(['14.5', '14.5', '14.5']);
    expect(fs.readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('Scores out of 14.5');

    const back = await gradeBatch(submissions, out, visible);
    expect(back.graded).toHaveLength(3);
    expect(header()).toEqual(['name', ...VISIBLE.map((c) => c.name), 'total', 'max', 'status']);
    expect(maxima()).toEqual(['12', '12', '12']);
  });

  it('regrades a submission edited since, or one whose result records nothing, and keeps the rest', async () => {
    // The folder holds what `visible` grades (the test before ended with it): nothing to regrade.
    expect((await gradeBatch(submissions, out, visible)).graded).toEqual([]);
    fs.appendFileSync(path.join(submissions, 'buggy', 'index.ts'), '\n// edited after grading\n');
    const results = JSON.parse(fs.readFileSync(path.join(out, resultsFile('good')), 'utf8'));
    delete results.extra_data.graded_with;
    fs.writeFileSync(path.join(out, resultsFile('good')), JSON.stringify(results));
    const edited = await gradeBatch(submissions, out, visible);
    expect(Object.fromEntries(edited.regraded)).toEqual({ buggy: 'edited', good: 'unrecorded' });
    expect(edited.skipped).toEqual(['no_index']);
    fs.writeFileSync(path.join(submissions, 'no_index', 'index.ts'), fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts')));
    const fixed = await gradeBatch(submissions, out, visible);
    expect(Object.fromEntries(fixed.regraded)).toEqual({ no_index: 'edited' });
    expect(fixed.entries.find((e) => e.name === 'no_index')?.score).toBe(12);
  });

  // The command line on the folder the runs above left, graded with what its flags give: all kept.
  it('from the command line, a fully resumed run closes with the summary', () => {
    const resumed = spawnSync(
      process.execPath,
      [RUN_TS, 'scripts/grade.ts', '--submissions', submissions, '--out', out, '--timeout', '30'],
      { cwd: PROJECT_ROOT, encoding: 'utf8' },
    );
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^kept 3 earlier result\(s\)/m);
    expect(resumed.stdout).toMatch(/^Submissions: 3\nScore \(out of 12\): mean /m);
  });
});
