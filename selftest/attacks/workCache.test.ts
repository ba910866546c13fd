/**
 * The work a batch keeps for its next run (lib/workCache.ts: transpiled code and type checks
 * in `<out>/.cache/`), through `npm run grade -- --submissions --force` as instructors rerun a
 * course, as root. A rerun from the cache gives the same results, type notes included; an entry
 * that is corrupt or of other files is not used; an edited submission is graded as edited. And a
 * child that is told the cache's exact path (an attack that knows the folder) reads nothing of it:
 * the cache holds every classmate's code.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR } from '../../lib/workCache';
import { PROJECT_ROOT, RUN_TS } from '../../lib/paths';
import { resultsFile } from '../../lib/report/batchReport';
import type { GradescopeResults } from '../../lib/report/gradescope';
import { materialize, tempDir } from '../grader/materialize';

const IS_ROOT = process.getuid?.() === 0;
const work = tempDir('work-cache');
const submissions = path.join(work, 'submissions');
const out = path.join(work, 'out');
const cache = path.join(out, CACHE_DIR);
const reference = path.join(PROJECT_ROOT, 'reference', 'index.ts');
const TYPE_ERROR = "\nexport const typeNote: number = 'not a number';\n";

/** causalMask reads the cache, whose path it was written with, and throws what it read. */
const PEEK = `
import type { Fs } from './kit';
import { nodeModule, messageOf } from './kit';
export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';
export function causalMask(): never {
  const found: string[] = [];
  try {
    const fs = nodeModule<Fs>('fs');
    for (const kind of ['transpiled', 'typechecked']) {
      const dir = ${JSON.stringify(cache)} + '/' + kind;
      try {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
          found.push('listed ' + entry.name);
          try { found.push('read ' + fs.readFileSync(dir + '/' + entry.name).length + ' bytes'); } catch { /* refused */ }
        }
      } catch { /* refused */ }
    }
  } catch (err) {
    found.push('no fs: ' + messageOf(err));
  }
  throw new Error(found.length ? 'peek found: ' + found.slice(0, 4).join('; ') : 'peek read nothing');
}
`;

function grade(): { status: number | null; log: string } {
  const result = spawnSync(process.execPath, [RUN_TS, 'scripts/grade.ts', '--submissions', submissions, '--out', out, '--force', '--jobs', '2'],
    { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 240_000 });
  return { status: result.status, log: `${result.stdout}\n${result.stderr}` };
}

/** What a result says, without what changes from run to run (times, the record of when). */
function said(name: string) {
  const r = JSON.parse(fs.readFileSync(path.join(out, resultsFile(name)), 'utf8')) as GradescopeResults;
  return { score: r.score, output: r.output, tests: r.tests.map((t) => [t.name, t.score, t.status, t.output]) };
}

const NAMES = ['good', 'peek', 'typo'];
const entries = (kind: string) => fs.readdirSync(path.join(cache, kind)).filter((f) => f.endsWith('.json'));

describe.runIf(IS_ROOT)('the work a batch keeps for its next run, as root', () => {
  const runs: Record<string, ReturnType<typeof said>>[] = [];
  const logs: string[] = [];
  const gradeAll = () => {
    const { status, log } = grade();
    logs.push(log);
    expect(status, log).toBe(0);
    runs.push(Object.fromEntries(NAMES.map((n) => [n, said(n)])));
  };
  beforeAll(() => {
    materialize(reference, submissions, 'good');
    fs.copyFileSync(path.join(__dirname, 'kit.ts'), path.join(materialize(reference, submissions, 'peek'), 'kit.ts'));
    fs.writeFileSync(path.join(submissions, 'peek', 'index.ts'), PEEK);
    fs.appendFileSync(path.join(materialize(reference, submissions, 'typo'), 'index.ts'), TYPE_ERROR);
  }, 60_000);

  it('a rerun from the cache grades as the first run did, type notes included', () => {
    gradeAll();
    expect(entries('transpiled')).toHaveLength(3);
    expect(entries('typechecked')).toHaveLength(3);
    const mtimes = entries('transpiled').map((f) => fs.statSync(path.join(cache, 'transpiled', f)).mtimeMs);
    gradeAll();
    expect(runs[1]).toEqual(runs[0]);
    // The same entries, used again (touched), none added.
    expect(entries('transpiled')).toHaveLength(3);
    expect(entries('transpiled').map((f) => fs.statSync(path.join(cache, 'transpiled', f)).mtimeMs).every((t, i) => t >= mtimes[i])).toBe(true);
    expect(runs[0].good.score).toBe(12);
    expect(runs[0].typo.score).toBe(12);
    expect(runs[0].typo.output).toMatch(/Type errors \(no points/);
    expect(runs[0].good.output ?? '').not.toMatch(/Type errors/);
  }, 300_000);

  it('a child told where the cache is reads nothing of it, on either run', () => {
    for (const run of runs) {
      const causal = run.peek.tests.filter(([name]) => String(name).startsWith('test_causal_mask'));
      expect(causal.length).toBeGreaterThan(0);
      for (const test of causal) expect(String(test[3])).toMatch(/peek read nothing/);
    }
  });

  it('a corrupt entry or one of other files is not used: the results stay those of the files', () => {
    const read = (kind: string) => entries(kind).map((f) => {
      const file = path.join(cache, kind, f);
      return { file, text: fs.readFileSync(file, 'utf8'), value: (JSON.parse(fs.readFileSync(file, 'utf8')) as { value: unknown }).value };
    });
    // good's transpiled code swapped for peek's, and good's and peek's type checks for typo's: an
    // entry under another key's name, whose id says whose it is; peek's transpiled code not JSON.
    const transpiled = read('transpiled');
    const label = (e: (typeof transpiled)[number]) => (e.value as { load: { label: string } }).load.label;
    fs.writeFileSync(transpiled.find((e) => label(e) === 'good')!.file, transpiled.find((e) => label(e) === 'peek')!.text);
    fs.writeFileSync(transpiled.find((e) => label(e) === 'peek')!.file, '{ not json');
    const checked = read('typechecked');
    const withErrors = checked.find((e) => (e.value as string[]).length > 0)!;
    for (const e of checked) if (e !== withErrors) fs.writeFileSync(e.file, withErrors.text);
    // In the same run, typo is edited while its entries stay as they were (next test).
    const index = path.join(submissions, 'typo', 'index.ts');
    fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace(TYPE_ERROR, '\n'));
    gradeAll();
    expect(runs[2].good).toEqual(runs[0].good);
    expect(runs[2].peek).toEqual(runs[0].peek);
  }, 300_000);

  it('an edited submission is graded as edited, not as the cache remembers it', () => {
    expect(runs[2].typo.output ?? '').not.toMatch(/Type errors/);
    expect(runs[2].typo.score).toBe(12);
    expect(entries('transpiled')).toHaveLength(4);
  }, 300_000);
});
