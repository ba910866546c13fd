/**
 * What a submission can make the batch write, through the command line as CI runs it, beside a
 * correct submission: a file of 100 KiB of `)` (one syntax error per character) and one of
 * thousands of imports of missing files must give results, pages and cache entries of a bounded
 * size, with each note once; folder names built to be formulas once a spreadsheet cuts the CSV on
 * `,`, `;` or TAB (quotes honoured or not) must stay text in grades.csv, grades-long.csv and
 * canvas.csv; and every line printed about them (the roster's warnings too) must be free of
 * control characters and workflow commands.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR } from '../../lib/workCache';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { pageFile, resultsFile } from '../../lib/report/batchReport';
import { csvRecords } from '../../lib/report/exports';
import { materialize, tempDir } from '../grader/materialize';
import { formulaCells } from './spreadsheet';

const work = tempDir('gradebook-files');
const submissions = path.join(work, 'submissions');
const out = path.join(work, 'out');
/** Names a spreadsheet would run once it cuts them: after a `;`, a TAB, a quote or a line break. */
const FORMULA_NAMES = ['x;=1+2;', 'tab\t=cmd|x', 'q"@SUM(A1)', 'l\n-2+3', "s ;\t+A1"];

let run: ReturnType<typeof spawnSync>;

beforeAll(() => {
  const reference = path.join(PROJECT_ROOT, 'reference', 'index.ts');
  materialize(reference, submissions, 'good');
  fs.mkdirSync(path.join(submissions, 'parens'));
  fs.writeFileSync(path.join(submissions, 'parens', 'index.ts'), `export function softmax() {}\n${')'.repeat(100 * 1024)}\n`);
  fs.mkdirSync(path.join(submissions, 'imports'));
  fs.writeFileSync(path.join(submissions, 'imports', 'index.ts'), Array.from({ length: 2000 }, (_, i) => `import './m${i}';`).join('\n'));
  for (const name of FORMULA_NAMES) materialize(reference, submissions, name);
  fs.writeFileSync(path.join(work, 'roster.csv'), `submission,student\n${FORMULA_NAMES.map((n) => `"${n.replace(/"/g, '""')}","=HYPERLINK(""x"")"`).join('\n')}\n"=evil\n::error::x",Nobody\n`);
  run = spawnSync(process.execPath, [RUN_TS, 'scripts/grade.ts', '--submissions', submissions, '--out', out, '--timeout', '30', '--roster', path.join(work, 'roster.csv')], {
    cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, GITHUB_ACTIONS: 'true' }, timeout: 600_000,
  });
});

describe('what a submission can make a batch write', () => {
  it('a flood of syntax errors or missing imports: results, pages and cache entries stay small, each note once', () => {
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    for (const name of ['parens', 'imports']) {
      const result = fs.readFileSync(path.join(out, resultsFile(name)), 'utf8');
      expect(result.length, name).toBeLessThan(64 * 1024);
      expect(fs.statSync(path.join(out, pageFile(name))).size, name).toBeLessThan(128 * 1024);
      // The notes are cut to a few, then a count; and they are in the result once, in its output.
      const { output } = JSON.parse(result) as { output: string };
      const more = output.split('\n').find((line) => line.startsWith('… and '));
      expect(more, name).toMatch(/^… and \d{3,} more /);
      expect(result.split(JSON.stringify(more).slice(1, -1)).length - 1, name).toBe(1);
    }
    // The load check stops at the first syntax error, as the parser does: one line, at its place.
    const parens = (JSON.parse(fs.readFileSync(path.join(out, resultsFile('parens')), 'utf8')) as { output: string }).output;
    expect(parens.split('\n').filter((line) => line.startsWith('syntax error at '))).toEqual([expect.stringMatching(/^syntax error at parens\/index\.ts:2:1: /)]);
    for (const kind of ['transpiled', 'typechecked']) {
      for (const entry of fs.readdirSync(path.join(out, CACHE_DIR, kind))) expect(fs.statSync(path.join(out, CACHE_DIR, kind, entry)).size, entry).toBeLessThan(512 * 1024);
    }
  });

  it('names made to be formulas stay text in every CSV, however a spreadsheet cuts it', () => {
    for (const file of ['grades.csv', 'grades-long.csv', 'canvas.csv']) {
      expect(formulaCells(fs.readFileSync(path.join(out, file), 'utf8')), file).toEqual([]);
    }
    const rows = csvRecords(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'));
    expect(rows.filter((r) => r.total === '12')).toHaveLength(1 + FORMULA_NAMES.length);
  });

  it('the log carries no control character and no workflow command, the roster\'s warnings included', () => {
    const log = `${run.stdout}\n${run.stderr}`;
    expect(run.stderr).toMatch(/roster student\(s\) with no submission/);
    // eslint-disable-next-line no-control-regex
    expect(log).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    for (const line of log.split('\n')) {
      expect(line.trim().startsWith('::'), line).toBe(false);
      expect(line.includes('##['), line).toBe(false);
    }
  });
});
