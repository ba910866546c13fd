import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { resultProblem } from '../batch/checkResult';
import { regradeReason } from '../batch/resume';
import { toGradescope } from '../report/gradescope';
import { RosterError } from './roster';
import { caseResult, submission } from '../report/sampleResults';
import { extendedDueTimes, readExtensions } from './extensions';
import { formatLatePolicy, parseLatePolicy, withLatePenalty, type LatePolicy } from './policy';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'extensions-'));
const file = (name: string, text: string) => {
  fs.writeFileSync(path.join(tmp, name), text);
  return path.join(tmp, name);
};
const DUE = Date.parse('2026-12-01T23:59:00Z');
const H = 3_600_000;
const POLICY = parseLatePolicy('due=2026-12-01T23:59Z,per=day,penalty=10%', true) as LatePolicy;

describe('--extensions', () => {
  it('a due time or an extension per student, named by submission or by Canvas\'s identifiers; a row with neither has none', () => {
    const ext = readExtensions(file('a.csv', 'submission,due,extension\r\njosé,2026-12-03T23:59Z,\r\nzoë,,48h\r\nkim,,\r\n'));
    expect(ext.entries.map((e) => [e.who.submission, e.dueMs, e.extraMs])).toEqual([['josé', DUE + 48 * H, undefined], ['zoë', undefined, 48 * H]]);
    // Canvas's own export with an Extension column added, read as --roster reads it.
    const canvas = readExtensions(file('canvas.csv', '\uFEFFStudent;ID;SIS User ID;SIS Login ID;Section;Attention (1);Extension\r\n    Points Possible;;;;;14.50;\r\n"Núñez, José";4101;S1;jnunez@uni.edu;A;;2d\r\nAna;4102;S2;ana;A;;\r\n'));
    expect(canvas.entries).toHaveLength(1);
    const { dueOf, unmatched } = extendedDueTimes(canvas, ['jnunez', 'ana'], DUE);
    expect([...dueOf]).toEqual([['jnunez', DUE + 48 * H]]);
    expect(unmatched).toEqual([]);
  });

  it('one line naming the row and the fix for what it cannot use', () => {
    const refusals: [string, RegExp][] = [
      ['submission,when\nx,1\n', /has neither a "due" nor an "extension" column/],
      ['submission,due\nx,tomorrow\n', /line 2: tomorrow is not a time with its zone/],
      ['submission,extension\nx,2 weeks\n', /line 2: "?2 weeks"? is not a duration \(e\.g\. 48h, 2d or 90m\)/],
      ['submission,due,extension\nx,2026-12-03T23:59Z,1d\n', /line 2: both a due time and an extension; keep one/],
      ['submission,extension\nx,1d\nx,2d\n', /line 3: x has an extension on an earlier line too/],
      ['submission,student,extension\n,Xu,1d\n', /line 2: no submission name, and no ID, SIS User ID or SIS Login ID/],
    ];
    for (const [text, why] of refusals) expect(() => readExtensions(file('bad.csv', text)), text).toThrow(why);
    expect(() => readExtensions(path.join(tmp, 'nowhere.csv'))).toThrow(RosterError);
  });

  it('the same extensions written another way are one record; any change to one is another', () => {
    const random = seedrandom('extensions');
    const rows = Array.from({ length: 12 }, (_, i) => [`s${i}`, random() < 0.5 ? `${1 + Math.floor(random() * 72)}h` : '']);
    const write = (order: string[][], header = 'submission,extension', sep = ',') => readExtensions(file('x.csv', `${header.replace(',', sep)}\n${order.map((r) => r.join(sep)).join('\n')}\n`)).sha256;
    const base = write(rows);
    expect(write([...rows].reverse())).toBe(base);
    expect(write(rows, 'submission,extension', ';')).toBe(base);
    expect(write(rows.map(([s, e]) => [e, s]), 'extension,submission')).toBe(base);
    const changed = rows.map((r, i) => (i === 3 ? [r[0], '99h'] : r));
    expect(write(changed)).not.toBe(base);
  });

  it('students that match no submission are said; a rerun with another due time regrades; a merge checks the penalty against it', () => {
    const ext = readExtensions(file('m.csv', 'submission,extension\nalice,48h\nbobby,1d\n'));
    const { dueOf, unmatched } = extendedDueTimes(ext, ['alice', 'bob'], DUE);
    expect(unmatched).toEqual(['bobby']);
    const extendedMs = dueOf.get('alice')!;
    const result = withLatePenalty(submission('alice', [caseResult('test_a', { maxPoints: 12 })]), POLICY, { submittedMs: DUE + 50 * H, extendedMs, source: 'times' });
    expect(result.late).toMatchObject({ penalty: 1.2, extended: true });
    const written = toGradescope(result);
    const run = { options: { late_policy: formatLatePolicy(POLICY) }, cases: 'c', fixtures: 'f' };
    written.extra_data.graded_with = { ...run, submission: 'h', submitted_at: result.late!.submitted_at, due: new Date(extendedMs).toISOString() };
    const table = [{ name: 'test_a', fn: 'scaled_dot_product_attention' as const, points: 12, fixture: 'x', hidden: false, tolerance: { atol: 0, rtol: 0 }, checks: [], what: '' }];
    expect(resultProblem(written, table, formatLatePolicy(POLICY))).toBeUndefined();
    const forged = { ...written, extra_data: { ...written.extra_data, graded_with: { ...written.extra_data.graded_with, due: undefined } } };
    expect(resultProblem(forged, table, formatLatePolicy(POLICY))).toBe('its late penalty is for another due time than it records');
    expect(regradeReason(written, { ...written.extra_data.graded_with }, false)).toBeUndefined();
    expect(regradeReason(written, { ...written.extra_data.graded_with, due: new Date(extendedMs + H).toISOString() }, false)).toBe('other_time');
  });
});
