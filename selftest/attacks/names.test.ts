/**
 * Every name a batch can meet is the submission's problem, never the grader's: folders named with
 * random bytes (often not UTF-8), the longest names a file system allows in several scripts,
 * names that differ only by case or Unicode form, names a platform reserves or that look like the
 * batch's own files or stems, control characters and workflow commands; and inside a submission,
 * a file whose name is not UTF-8. Through the command line as CI runs it, beside correct
 * submissions: the run ends with exit 0 and a row for every folder, each submission's files are
 * its own (bounded, portable, listed in batch.json), the log carries nothing a name smuggled in,
 * a rerun keeps every result, and shards merge into the same gradebook.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GRADED_CASES } from '../../tests/cases';
import { fileStem } from '../../lib/report/layout';
import type { BatchRecord } from '../../lib/batch/record';
import { nameFromBytes, notText } from '../../lib/intake/names';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { parseCsv } from '../../lib/report/exports';
import { spreadsheetCell } from '../../lib/text/sanitise';
import { materialize, tempDir } from '../grader/materialize';
import { drawNames } from './names';

const work = tempDir('batch-names');
const submissions = path.join(work, 'submissions');
const DRAWN = drawNames('batch-names', 40);
const NAMES = DRAWN.map(({ bytes }) => nameFromBytes(bytes));
/** The names of each class's examples, which come first (drawNames). */
const EXAMPLES = drawNames('batch-names', 0).length;
/**
 * Graded with the reference: a long name in each script, one name in three cases, a random one,
 * names like ours. The drawn case variants hold no index.ts: twins with the same code would show
 * no more than their rows and files of their own, which every name is held to.
 */
const CORRECT = new Set(DRAWN.filter(({ kind }, i) => (i < EXAMPLES && ['long', 'case', 'own files', 'control', 'formula'].includes(kind)) || (i % 7 === 0 && kind !== 'case'))
  .map(({ bytes }) => nameFromBytes(bytes)));
const folder = (name: string) => Buffer.concat([Buffer.from(`${submissions}/`), DRAWN[NAMES.indexOf(name)].bytes]);

function grade(out: string, ...more: string[]) {
  const command = [RUN_TS, 'scripts/grade.ts', '--submissions', submissions, '--out', out, '--timeout', '30', ...more];
  return spawnSync(process.execPath, command, { cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, GITHUB_ACTIONS: 'true' }, timeout: 600_000 });
}

/** grades.csv's rows, each by column. */
function gradebook(out: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8'));
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

let first: ReturnType<typeof grade>;
const whole = path.join(work, 'whole');

beforeAll(() => {
  fs.mkdirSync(submissions, { recursive: true });
  const reference = fs.readFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'));
  for (const name of NAMES) {
    fs.mkdirSync(folder(name));
    // Most folders hold no index.ts: a row each, and no child to start.
    if (CORRECT.has(name)) fs.writeFileSync(Buffer.concat([folder(name), Buffer.from('/index.ts')]), reference);
  }
  // Inside a submission: a file whose name is not UTF-8, and one of the longest name there can be.
  const inside = materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'odd-files');
  fs.writeFileSync(Buffer.concat([Buffer.from(`${inside}/notes`), Buffer.of(0xfe), Buffer.from('.ts')]), '// mine\n');
  const long = materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'long-file');
  fs.writeFileSync(path.join(long, `${'я'.repeat(124)}.ts`), 'export const x = 1;\n');
  first = grade(whole);
});

describe('a batch of folders named by every class of name', () => {
  const all = () => [...NAMES, 'odd-files', 'long-file'];

  it('ends with exit 0 and one row per folder: the correct ones full marks, the rest why not', () => {
    expect(first.status, `${first.stdout}\n${first.stderr}`).toBe(0);
    const rows = gradebook(whole);
    expect(rows).toHaveLength(all().length);
    // A name as the gradebook shows it (controls dropped, formulas guarded); two names may show alike.
    const shown = (name: string) => spreadsheetCell(name);
    for (const name of NAMES.filter((n) => NAMES.filter((m) => shown(m) === shown(n)).length === 1)) {
      const row = rows.find((r) => r.name === shown(name));
      expect(row, JSON.stringify(name)).toBeDefined();
      if (notText(name)) expect(row!.status, JSON.stringify(name)).toMatch(/^graded \(\d+ tests refused\)$/);
      else if (CORRECT.has(name)) expect(row!.total, JSON.stringify(name)).toBe('12');
      else expect(row!.status, JSON.stringify(name)).toMatch(/^error: .*holds no index\.ts/);
    }
    expect(rows.find((r) => r.name === 'odd-files')!.status).toBe(`graded (${GRADED_CASES.filter((c) => !c.hidden).length} tests refused)`);
    expect(rows.find((r) => r.name === 'long-file')!.total).toBe('12');
    const odd = JSON.parse(fs.readFileSync(path.join(whole, 'submissions', `${fileStem('odd-files')}.json`), 'utf8'));
    expect(odd.tests[0].output).toMatch(/"notes\\xFE\.ts" has a name that is not UTF-8 text/);
  });

  it("each submission's files are its own: two per name, bounded, portable, listed in batch.json, none beside the batch's", () => {
    const record = JSON.parse(fs.readFileSync(path.join(whole, 'batch.json'), 'utf8')) as BatchRecord;
    expect(Object.keys(record.files).sort()).toEqual([...all()].sort());
    const files = fs.readdirSync(path.join(whole, 'submissions'));
    expect(files.sort()).toEqual(all().flatMap((name) => [`${record.files[name]}.html`, `${record.files[name]}.json`]).sort());
    expect(new Set(files.map((f) => f.toLowerCase())).size).toBe(files.length);
    for (const file of files) expect(file).toMatch(/^[a-z0-9_][a-z0-9_-]{0,67}\.(json|html)$/);
    expect(fs.readdirSync(whole).sort()).toEqual(['.cache', 'batch.json', 'grades-long.csv', 'grades.csv', 'report.html', 'submissions']);
  });

  it('the log carries no control character and no workflow command from a name', () => {
    const log = `${first.stdout}\n${first.stderr}`;
    // eslint-disable-next-line no-control-regex
    expect(log).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    for (const line of log.split('\n')) {
      expect(line.trim().startsWith('::'), line).toBe(false);
      expect(line.includes('##['), line).toBe(false);
    }
    // Names that differ only by case or Unicode form are graded apart, and the log says they look alike.
    expect(first.stderr).toMatch(/^grade: .*alice.*differ only by case, spaces or Unicode form/im);
  });

  it('a rerun keeps every result; shards merge into the same gradebook', () => {
    const again = grade(whole);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^kept ${all().length} earlier result\\(s\\)`, 'm'));
    const shards = [1, 2].map((i) => {
      const out = path.join(work, `shard-${i}`);
      const run = grade(out, '--shard', `${i}/2`);
      expect(run.status, run.stderr).toBe(0);
      return out;
    });
    const merged = path.join(work, 'merged');
    const merge = spawnSync(process.execPath, [RUN_TS, 'scripts/merge.ts', ...shards, '--out', merged], { cwd: PROJECT_ROOT, encoding: 'utf8' });
    expect(merge.status, merge.stderr).toBe(0);
    for (const file of ['grades.csv', 'grades-long.csv']) expect(fs.readFileSync(path.join(merged, file), 'utf8'), file).toBe(fs.readFileSync(path.join(whole, file), 'utf8'));
    expect(fs.readdirSync(path.join(merged, 'submissions')).sort()).toEqual(fs.readdirSync(path.join(whole, 'submissions')).sort());
  });
});
