/**
 * A late policy on a batch: each submission's time from --times (names matched as a roster's are)
 * or from the commit fetch-submissions graded, the penalty in grades.csv (points before it, the
 * penalty, the total after it) and in each result, a submission with no time said to have none,
 * the policy and each time recorded (a rerun with another regrades), and a merge that recomputes
 * every penalty from what was recorded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FETCHED_FILE } from '../../lib/batch/fetched';
import { mergeShards } from '../../lib/batch/merge';
import { readExtensions } from '../../lib/late/extensions';
import { parseLatePolicy, type LatePolicy } from '../../lib/late/policy';
import { gradeBatch, type BatchOptions } from '../../lib/batch/gradeBatch';
import { PROJECT_ROOT } from '../../lib/paths';
import { resultsFile } from '../../lib/report/batchReport';
import { csvRecords } from '../../lib/report/exports';
import { gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';
import { CauseBook } from '../../lib/report/causes';
import { MISTAKES } from '../../tests/diagnosis/catalogue';
import { FUNCTIONS } from '../../adapters/functions';
import { GRADED_CASES } from '../../tests/cases';

const BOOK = { functions: FUNCTIONS, causes: new CauseBook(MISTAKES) };

const root = tempDir('late');
const submissions = path.join(root, 'submissions');
const out = path.join(root, 'out');
const DUE = '2026-12-01T23:59:00Z';
const at = (hoursAfterDue: number) => new Date(Date.parse(DUE) + hoursAfterDue * 3_600_000).toISOString();
const policyOf = (text: string) => parseLatePolicy(text, true) as LatePolicy;
const POLICY = policyOf(`due=${DUE},per=day,penalty=10%,cap=25%,grace=15m`);

let options: BatchOptions;
const times = (entries: Record<string, string>) => new Map(Object.entries(entries).map(([name, iso]) => [name, Date.parse(iso)]));
const rows = () => Object.fromEntries(csvRecords(fs.readFileSync(path.join(out, 'grades.csv'), 'utf8')).map((r) => [r.name, r]));

beforeAll(() => {
  for (const name of ['early', 'late', 'Late-Too', 'untimed']) materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, name);
  const commit = (hours: number) => ({ slug: 'course/x', commit: 'a'.repeat(40), committed_at: at(hours) });
  fs.writeFileSync(path.join(submissions, FETCHED_FILE), JSON.stringify({ about: 'test', repositories: { early: commit(-2), late: commit(25) } }));
  options = {
    ...gradeOptions({ timeoutMs: 30_000 }), jobs: 2, force: false, html: true, latePolicy: POLICY,
    // Typed by hand: another case than the folder's, and a slip of a name that is in no folder.
    times: times({ 'late-too': at(72), untimd: at(1) }),
  };
});

describe('a late policy on a batch', () => {
  it('takes each time from --times or the fetched commit; grades.csv shows the points before, the penalty and the total after', async () => {
    const outcome = await gradeBatch(submissions, out, options);
    const r = rows();
    expect(Object.fromEntries(Object.entries(r).map(([name, row]) => [name, [row['points before penalty'], row['late penalty'], row.total]]))).toEqual({
      early: ['12', '0', '12'],
      late: ['12', '2.4', '9.6'],
      'Late-Too': ['12', '3', '9'],
      untimed: ['12', '0', '12'],
    });
    expect(r.late.late).toBe('1 day 1 h late (2 days at 10% a day): −2.4 points');
    expect(r['Late-Too'].late).toBe('3 days late (3 days at 10% a day, capped at 25%): −3 points');
    expect(r['Late-Too']['submitted at']).toBe(at(72));
    expect(r.early.late).toBe('on time');
    expect(r.untimed.late).toBe('no submission time known: no late penalty applied');
    expect(outcome.untimed).toEqual(['untimed']);
    expect(outcome.timesUnmatched).toEqual(['untimd (did you mean untimed?)']);
    const late = JSON.parse(fs.readFileSync(path.join(out, resultsFile('late')), 'utf8'));
    expect(late.score).toBe(9.6);
    expect(late.tests.reduce((sum: number, t: { score: number }) => sum + t.score, 0)).toBe(12);
    expect(late.extra_data.late).toMatchObject({ submitted_at: at(25), source: 'commit', due: new Date(DUE).toISOString(), before: 12, penalty: 2.4 });
    expect(late.output).toMatch(/^Late policy: 1 day 1 h late .*: −2\.4 points; score 9\.6\/12 after it\.$/m);
    expect(late.extra_data.graded_with).toMatchObject({ submitted_at: at(25), options: { late_policy: `due=${new Date(DUE).toISOString()},per=day,penalty=10%,cap=25%,grace=15m` } });
  });

  it('keeps what still matches; a corrected time or another policy regrades', async () => {
    const kept = await gradeBatch(submissions, out, options);
    expect(kept.skipped).toHaveLength(4);
    // A resumed run speaks of the whole batch: the submission without a time was graded by the run before.
    expect(kept.untimed).toEqual(['untimed']);
    const corrected = await gradeBatch(submissions, out, { ...options, times: times({ 'late-too': at(2) }) });
    expect(Object.fromEntries(corrected.regraded)).toEqual({ 'Late-Too': 'other_time' });
    expect(rows()['Late-Too'].total).toBe('10.8');
    // Another policy, and an extension of a day for Late-Too (typed in another case, matched as a roster's names are).
    fs.writeFileSync(path.join(root, 'extensions.csv'), 'submission,extension\nlate-too,1d\n');
    const other = await gradeBatch(submissions, out, {
      ...options, times: times({ 'late-too': at(2) }), latePolicy: policyOf(`due=${DUE},per=hour,penalty=1`), extensions: readExtensions(path.join(root, 'extensions.csv')),
    });
    expect([...other.regraded.values()]).toEqual(['other_options', 'other_options', 'other_options', 'other_options']);
    expect(rows().late.total).toBe('0');
    expect(rows()['Late-Too']).toMatchObject({ total: '12', 'late penalty': '0', due: at(24), late: `on time (extended due time ${at(24)})` });
    expect(rows().late.due).toBe(at(0));
  });

  it('a merge recomputes each penalty from the recorded policy and time, and refuses one that is not what they give', () => {
    const merged = mergeShards([out], path.join(root, 'merged'), GRADED_CASES, BOOK);
    expect(merged.rows.find((r) => r.name === 'late')?.total).toBe(0);
    const file = path.join(out, resultsFile('Late-Too'));
    const results = JSON.parse(fs.readFileSync(file, 'utf8'));
    // Its extension is recorded with it: the merge recomputes its penalty from the extended due time.
    expect(merged.rows.find((r) => r.name === 'Late-Too')?.total).toBe(12);
    results.extra_data.late.penalty = 2;
    results.score = 10;
    fs.writeFileSync(file, JSON.stringify(results));
    expect(() => mergeShards([out], path.join(root, 'merged-2'), GRADED_CASES, BOOK)).toThrow(/late-too--[a-z2-7]{26}\.json is not a result this grader wrote: its late penalty is 2 where the policy takes 0 of 12/);
  });
});
