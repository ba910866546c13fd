/**
 * Batch grading on a folder mixing good, buggy, hanging, exiting, refused and malformed
 * submissions: one row each with the right total, resumable (the report too), and the CLI completes
 * with exit 0, regrading the same folder whole with --force.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gradeBatch } from '../../lib/batch/gradeBatch';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { pageFile, resultsFile } from '../../lib/report/batchReport';
import { escapeHtml, fileHref } from '../../lib/report/html';
import { visibleCases } from '../../tests/cases';
import { gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';

const EXPECTED: Record<string, number> = {
  good: 12,
  buggy_scale_missing: 7,
  hang_in_attention: 7,
  exit_at_import: 0,
  refused_import: 0,
  no_index: 0,
  'name, with "quotes"': 12,
};

const root = tempDir('batch');
const submissions = path.join(root, 'submissions');

beforeAll(() => {
  const misbehaving = (name: string) => path.join(__dirname, 'misbehaving', `${name}.ts`);
  materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'good');
  materialize(path.join(__dirname, '..', 'catalogue', 'bugs', 'scale_missing.ts'), submissions, 'buggy_scale_missing');
  for (const name of ['hang_in_attention', 'exit_at_import', 'refused_import']) materialize(misbehaving(name), submissions);
  fs.mkdirSync(path.join(submissions, 'no_index'));
  fs.mkdirSync(path.join(submissions, 'name, with "quotes"', 'student'), { recursive: true });
  fs.copyFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), path.join(submissions, 'name, with "quotes"', 'student', 'index.ts'));
});

/** name → total, from an RFC 4180 gradebook (quoted cells, CRLF rows). */
function csvTotals(csv: string): Record<string, number> {
  const rows: string[][] = [];
  let row: string[] = [];
  for (const [, quoted, plain, end] of csv.matchAll(/(?:"((?:[^"]|"")*)"|([^,\r\n]*))(,|\r?\n|$)/g)) {
    row.push(quoted !== undefined ? quoted.replace(/""/g, '"') : plain);
    if (end !== ',') {
      rows.push(row);
      row = [];
      if (end === '') break;
    }
  }
  const header = rows[0];
  const total = header.indexOf('total');
  return Object.fromEntries(rows.slice(1).filter((r) => r.length === header.length).map((r) => [r[0], Number(r[total])]));
}

describe('batch grading', () => {
  it('writes one row per submission with its total, and resumes', async () => {
    const out = path.join(root, 'out');
    const options = { ...gradeOptions({ timeoutMs: 700 }), jobs: 2, force: false, html: true };
    const first = await gradeBatch(submissions, out, options);
    expect(first.graded).toHaveLength(Object.keys(EXPECTED).length);
    expect(csvTotals(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'))).toEqual(EXPECTED);
    for (const name of Object.keys(EXPECTED)) {
      expect(fs.existsSync(path.join(out, resultsFile(name)))).toBe(true);
      expect(fs.existsSync(path.join(out, pageFile(name)))).toBe(true);
    }

    fs.rmSync(path.join(out, resultsFile('good')));
    fs.rmSync(path.join(out, pageFile('no_index')));
    const second = await gradeBatch(submissions, out, options);
    expect(second.graded.map((r) => r.name)).toEqual(['good']);
    expect(second.skipped).toHaveLength(Object.keys(EXPECTED).length - 1);
    expect(csvTotals(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'))).toEqual(EXPECTED);
    // The report is rebuilt from every JSON file, kept or new: all submissions, the kept one's mistake too.
    const report = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
    for (const name of Object.keys(EXPECTED).filter((n) => n !== 'no_index')) {
      expect(report).toContain(`<a class="page" href="${fileHref(pageFile(name))}">${escapeHtml(name)}</a>`);
    }
    expect(report).toMatch(/<li>no_index <span class="muted">\(no page: graded before pages were written/);
    // A missing scale is named on every visible attention test.
    expect(report).toContain(`scale_missing</span></td><td class="num">1</td><td class="num">${visibleCases('scaled_dot_product_attention').length}</td>`);
    expect(report).toContain(`<h1>Attention assignment: ${Object.keys(EXPECTED).length} submissions</h1>`);
    const buggyPage = fs.readFileSync(path.join(out, pageFile('buggy_scale_missing')), 'utf8');
    expect((buggyPage.match(/<svg class="heatmap"/g) ?? []).length).toBe(visibleCases('scaled_dot_product_attention').length * 3);
  });

  // The same folder, from the command line, with --force: every submission graded again, none kept.
  // (A missing --submissions folder is refused in cli.test.ts.)
  it('runs from the command line and exits 0 with a summary; --force regrades everything', () => {
    const out = path.join(root, 'out');
    fs.rmSync(path.join(out, 'report.html'));
    const run = spawnSync(
      process.execPath,
      [RUN_TS, 'scripts/grade.ts',
        '--submissions', submissions, '--out', out, '--jobs', '2', '--timeout', '0.7', '--force'],
      { cwd: PROJECT_ROOT, encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Submissions: 7/);
    expect(run.stdout).not.toMatch(/^kept /m);
    expect(run.stdout).toMatch(new RegExp(`^regraded ${Object.keys(EXPECTED).length}: ${Object.keys(EXPECTED).length} regraded by --force$`, 'm'));
    expect(csvTotals(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'))).toEqual(EXPECTED);
    expect(run.stdout).toMatch(/and .*report\.html/);
    expect(fs.existsSync(path.join(out, 'report.html'))).toBe(true);
  });
});
