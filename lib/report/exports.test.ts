import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GRADED_CASES } from '../../tests/cases';
import { gradebookCsv, rowFromResult } from './csv';
import { canvasCsv, canvasLines, longCsv, parseCsv } from './exports';
import { readRoster, RosterError } from '../late/roster';
import { toGradescope } from './gradescope';
import { caseResult, submission } from './sampleResults';
import { MISTAKES } from '../../tests/diagnosis/catalogue';
import { CauseBook } from './causes';
import { FUNCTIONS } from '../../adapters/functions';

const BOOK = { functions: FUNCTIONS, causes: new CauseBook(MISTAKES) };

const cases = GRADED_CASES.filter((c) => c.name === 'test_scaled_dot_product_attention' || c.name === 'test_causal_mask');
const good = submission('alice', [caseResult(cases[0].name, { maxPoints: cases[0].points }), caseResult(cases[1].name, { fn: 'causal_mask', maxPoints: cases[1].points })]);
const bad = submission('=bob', [
  caseResult(cases[0].name, { maxPoints: cases[0].points, status: 'failed', reason: 'x', diagnosis: { mistake: 'scale_missing', message: 'm' } }),
  caseResult(cases[1].name, { fn: 'causal_mask', maxPoints: cases[1].points, status: 'timeout', reason: 'slow' }),
]);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'exports-'));
const file = (name: string, text: string) => {
  fs.writeFileSync(path.join(tmp, name), text);
  return path.join(tmp, name);
};

describe('grades.csv', () => {
  it('one screen wide: name, points per test, total, max, status; what caused a failure is in grades-long.csv', () => {
    const [header, bob, alice] = parseCsv(gradebookCsv([good, bad], cases.map((c) => c.name)));
    expect(header).toEqual(['name', ...cases.map((c) => c.name), 'total', 'max', 'status']);
    expect(alice).toEqual(['alice', ...cases.map((c) => String(c.points)), String(good.score), String(good.maxScore), 'graded']);
    expect(bob).toEqual(["'=bob", '0', '0', '0', String(bad.maxScore), 'graded (1 test timed out)']);
    const long = parseCsv(longCsv([{ name: '=bob', results: toGradescope(bad) }], cases, BOOK));
    expect(long.find((r) => r[1] === cases[0].name)?.[5]).toBe('scale_missing');
  });
});

describe('grades-long.csv', () => {
  it('one row per submission and test: points, max, status, cause id and words; a missing result says so', () => {
    const rows = parseCsv(longCsv([{ name: 'alice', results: toGradescope(good) }, { name: '=bob', results: toGradescope(bad) }, { name: 'carol' }], cases, BOOK));
    expect(rows[0]).toEqual(['submission', 'test', 'points', 'max', 'status', 'cause_id', 'cause']);
    expect(rows).toHaveLength(1 + 3 * cases.length);
    expect(rows.find((r) => r[0] === 'alice')).toEqual(['alice', cases[0].name, String(cases[0].points), String(cases[0].points), 'passed', '', '']);
    const bobAttention = rows.find((r) => r[0] === "'=bob" && r[1] === cases[0].name)!;
    expect(bobAttention.slice(2, 6)).toEqual(['0', String(cases[0].points), 'failed', 'scale_missing']);
    expect(bobAttention[6]).toMatch(/^Your scores are not scaled/);
    expect(rows.find((r) => r[0] === "'=bob" && r[1] === cases[1].name)!.slice(4, 6)).toEqual(['timeout', '']);
    expect(rows.filter((r) => r[0] === 'carol').map((r) => r[4])).toEqual(['no result', 'no result']);
  });

  it("a diagnosis that only says what its probes saw is no cause: its cause cells are empty", () => {
    const seen = submission('dan', [caseResult(cases[0].name, { maxPoints: cases[0].points, status: 'failed', reason: 'x', diagnosis: { mistake: 'probabilities_wrong', message: 'm' } })]);
    const row = parseCsv(longCsv([{ name: 'dan', results: toGradescope(seen) }], cases, BOOK)).find((r) => r[1] === cases[0].name)!;
    expect(row.slice(4)).toEqual(['failed', '', '']);
  });
});

describe('canvas.csv', () => {
  const rows = [good, bad, submission('dave', [caseResult(cases[0].name, { maxPoints: cases[0].points })])].map(rowFromResult);

  it("Canvas's columns, a row per roster student with their score, and every submission the roster does not name kept and marked", () => {
    const roster = readRoster(file('roster.csv', '\uFEFFSubmission,Student,ID,SIS User ID,SIS Login ID,Section\r\nalice,"Smith, Alice",101,S1,asmith,A\r\n=bob,Bob Jones,102,S2,bjones,B\r\nerin,Erin Ode,104,S4,eode,A\r\n'));
    const out = canvasCsv(rows, roster, 'Attention (12345)');
    const parsed = parseCsv(out.csv);
    expect(parsed[0]).toEqual(['Student', 'ID', 'SIS User ID', 'SIS Login ID', 'Section', 'Attention (12345)']);
    expect(parsed.slice(1)).toEqual([
      ['Smith, Alice', '101', 'S1', 'asmith', 'A', String(good.score)],
      ['Bob Jones', '102', 'S2', 'bjones', 'B', String(bad.score)],
      ['Erin Ode', '104', 'S4', 'eode', 'A', ''],
      ['(not in the roster) dave', '', '', '', '', String(cases[0].points)],
    ]);
    expect(out.unmatched).toEqual([{ name: 'dave', nearest: undefined }]);
    expect(out.missing).toEqual(['erin']);
  });

  it('roster names match ignoring case, surrounding spaces and Unicode form; an exact name wins; a near miss is suggested', () => {
    // Each submission's total is its place in the list, so a score says which folder a roster line matched.
    const named = (names: string[]) => names.map((name, i) => rowFromResult(submission(name, [caseResult(cases[0].name, { points: i + 1, maxPoints: 10 })])));
    const nfd = 'jose\u0301';
    const gradebook = named(['dara-allen', 'Jos\u00e9', 'kim', 'KIM', 'lee-ann', 'mo', 'Sam', 'SAM']);
    const roster = readRoster(file('loose.csv', `submission,id\n DARA-ALLEN ,1\n${nfd},2\nKim,3\nkim,4\nlee-anne,5\nsam,6\n`));
    const out = canvasCsv(gradebook, roster, 'A');
    const score = (id: string) => parseCsv(out.csv).find((r) => r[1] === id)?.[5];
    // kim is typed exactly, so Kim is the other one, KIM.
    expect([score('1'), score('2'), score('3'), score('4')]).toEqual(['1', '2', '4', '3']);
    // sam is neither Sam nor SAM exactly, and both loosely: never a guess.
    expect(score('6')).toBe('');
    expect(out.ambiguous).toEqual([{ who: 'sam', names: ['SAM', 'Sam'] }]);
    expect(out.unmatched).toEqual([{ name: 'lee-ann', nearest: 'lee-anne' }, { name: 'mo', nearest: undefined }, { name: 'Sam', nearest: undefined }, { name: 'SAM', nearest: undefined }]);
    const { warned } = canvasLines(out, 'canvas.csv');
    expect(warned[0]).toContain('lee-ann (did you mean lee-anne?)');
    expect(warned[1]).toContain('sam matches SAM and Sam');
  });

  it('what the run prints about names goes through the sanitiser', () => {
    const evil = 'x\n::error file=a::owned\u001b[2J';
    const out = canvasCsv([rowFromResult(submission(evil, []))], [], 'A');
    for (const line of canvasLines(out, 'canvas.csv').warned) {
      expect(line).not.toMatch(/[\u0000-\u001f]/);
      expect(line).not.toContain('::');
    }
  });

  it('a roster that cannot be used is one line naming the file and the fix', () => {
    expect(() => readRoster(path.join(tmp, 'nowhere.csv'))).toThrow(/^roster .*nowhere\.csv cannot be read \(ENOENT\): pass --roster FILE/);
    expect(() => readRoster(file('a.csv', 'name,student\nx,y\n'))).toThrow(/has no "submission" column and none of Canvas's ID, SIS User ID or SIS Login ID/);
    expect(() => readRoster(file('b.csv', 'submission,section\nx,A\n'))).toThrow(/names no student: add a "student", "id"/);
    expect(() => readRoster(file('e.csv', 'submission,student,id\nx,Xu,1\n,Yu,\n'))).toThrow(/line 3: no submission name, and no ID, SIS User ID or SIS Login ID to find it by/);
    expect(() => readRoster(file('c.csv', 'submission,id\nx,1\nx,2\n'))).toThrow(/line 3: submission x is listed twice/);
    expect(() => readRoster(file('d.csv', 'submission,id\nx,1\n'))).not.toThrow(RosterError);
  });
});
