import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { rowFromResult } from '../report/csv';
import { canvasCsv, canvasLines, parseCsv } from '../report/exports';
import { matchRoster, readRoster, type RosterEntry } from './roster';
import { caseResult, submission } from '../report/sampleResults';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'roster-'));
const file = (name: string, text: string) => {
  fs.writeFileSync(path.join(tmp, name), text);
  return path.join(tmp, name);
};

/** Canvas's gradebook export as Canvas writes it: a byte-order mark, its columns, its "Points Possible" row. */
function canvasExport(students: readonly RosterEntry[], separator = ','): string {
  const quote = (cell: string) => (/[",;\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell);
  const lines = [
    ['Student', 'ID', 'SIS User ID', 'SIS Login ID', 'Integration ID', 'Section', 'Attention (12345)', 'Current Points', 'Final Points', 'Current Score', 'Final Score'],
    ['    Points Possible', '', '', '', '', '', '14.50', '(read only)', '(read only)', '(read only)', '(read only)'],
    ...students.map((s) => [s.student, s.id, s.sisUserId, s.sisLoginId, '', s.section, '', '0.00', '0.00', '', '']),
  ];
  return `\uFEFF${lines.map((l) => l.map(quote).join(separator)).join('\r\n')}\r\n`;
}

const STUDENTS: RosterEntry[] = [
  { student: 'Núñez, José', id: '4101', sisUserId: 'S0101', sisLoginId: 'jnunez@uni.edu', section: 'A' },
  { student: 'Zoë Ødegaard', id: '4102', sisUserId: 'S0102', sisLoginId: 'zodegaard', section: 'A' },
  { student: "O'Brien, Siobhán", id: '4103', sisUserId: 'S0103', sisLoginId: 'sobrien', section: 'B' },
  { student: 'Smith, Jo', id: '4104', sisUserId: 'S0104', sisLoginId: 'jsmith', section: 'B' },
];
const graded = (names: string[]) => names.map((name, i) => rowFromResult(submission(name, [caseResult('test_a', { points: i + 1, maxPoints: 10 })])));

describe("Canvas's gradebook export as a roster", () => {
  it('is read as it comes: byte-order mark, extra columns, the Points Possible row left out; each folder found by an identifier', () => {
    const roster = readRoster(file('canvas.csv', canvasExport(STUDENTS)));
    expect(roster).toEqual(STUDENTS);
    // Folders named by login (before its @), SIS User ID typed in another case, Canvas ID; one is no one's.
    const out = canvasCsv(graded(['jnunez', 's0102', '4103', 'guest']), roster, 'Attention (12345)');
    const scores = parseCsv(out.csv).slice(1).map((r) => [r[0], r[5]]);
    expect(scores).toEqual([['Núñez, José', '1'], ['Zoë Ødegaard', '2'], ["O'Brien, Siobhán", '3'], ['Smith, Jo', ''], ['(not in the roster) guest', '4']]);
    expect(out.by).toEqual({ 'SIS Login ID': 1, 'SIS User ID': 1, ID: 1 });
    const { said, warned } = canvasLines(out, 'canvas.csv');
    expect(said).toBe("wrote canvas.csv (Canvas gradebook import); roster students found by Canvas's identifiers: 1 by SIS Login ID, 1 by SIS User ID, 1 by ID");
    expect(warned).toEqual([
      '1 submission(s) not in the roster, marked "(not in the roster)" in it: guest',
      '1 roster student(s) with no submission (empty score, left as it was by Canvas): "Smith, Jo"',
    ]);
  });

  it('with ; between fields (a locale with decimal commas), and with a submission column added to some rows', () => {
    const semicolons = readRoster(file('semi.csv', canvasExport(STUDENTS, ';')));
    expect(semicolons).toEqual(STUDENTS);
    const added = readRoster(file('added.csv', 'submission,Student,ID,SIS Login ID\r\nattention-jose,"Núñez, José",4101,jnunez\r\n,Zoë Ødegaard,4102,zodegaard\r\n'));
    const { matches } = matchRoster(added, ['attention-jose', 'zodegaard', 'jnunez']);
    expect(matches).toEqual([{ kind: 'exact', name: 'attention-jose' }, { kind: 'exact', name: 'zodegaard', by: 'SIS Login ID' }]);
  });

  it('never guesses: a folder two students\' identifiers name, or a student whose identifiers name two folders, is matched to none and said', () => {
    const roster: RosterEntry[] = [
      { student: 'A', id: '7', sisUserId: 'amy', sisLoginId: 'amy@x.org', section: '' },
      { student: 'B', id: '8', sisUserId: '7', sisLoginId: 'bob', section: '' },
      { student: 'C', id: '9', sisUserId: 'S9', sisLoginId: 'cy', section: '' },
    ];
    const out = canvasCsv(graded(['7', 'amy', 'bob', 'cy', 'CY']), roster, 'A');
    expect(out.shared).toEqual([{ name: '7', students: ['A', 'B'] }]);
    // cy and CY both name C: the one named exactly wins.
    expect(out.ambiguous).toEqual([]);
    expect(parseCsv(out.csv).slice(1).map((r) => [r[0], r[5]])).toEqual([
      ['A', '2'], ['B', '3'], ['C', '4'], ['(not in the roster) 7', '1'], ['(not in the roster) CY', '5'],
    ]);
    // Two folders each named exactly by one of C's identifiers: C has two submissions, and neither is taken.
    const twice = canvasCsv(graded(['S9', 'cy']), roster, 'A');
    expect(twice.ambiguous).toEqual([{ who: 'C', names: ['S9', 'cy'] }]);
    expect(canvasLines(twice, 'c.csv').warned).toContain('1 roster student(s) match several submissions (score left empty; write the exact folder name in a "submission" column): C matches S9 and cy');
    const { warned } = canvasLines(out, 'canvas.csv');
    expect(warned).toContain('1 submission(s) named by several roster students\' identifiers, matched to none (write the folder in a "submission" column): 7 is named by A and B');
    expect(canvasLines(canvasCsv(graded(['nobody']), roster, 'A'), 'c.csv').warned[0]).toMatch(/^no submission folder is named as any roster student's SIS Login ID, SIS User ID or ID: add a "submission" column/);
  });

  it('a random course: every folder named by one of its student\'s identifiers, in any case, is that student\'s', () => {
    const random = seedrandom('canvas roster');
    for (let draw = 0; draw < 10; draw++) {
      const students: RosterEntry[] = Array.from({ length: 40 }, (_, i) => ({
        student: `Student ${i}, Ana`, id: String(5000 + i), sisUserId: `U${draw}-${i}`, sisLoginId: random() < 0.5 ? `user${i}@uni.edu` : `user${i}`, section: 'A',
      }));
      const folderOf = students.map((s) => {
        const choices = [s.id, s.sisUserId, s.sisLoginId, s.sisLoginId.replace(/@.*/, '')];
        const name = choices[Math.floor(random() * choices.length)];
        return random() < 0.3 ? name.toUpperCase() : name;
      });
      const submitted = folderOf.filter(() => random() < 0.8);
      const roster = readRoster(file(`r${draw}.csv`, canvasExport(students)));
      const { matches, shared } = matchRoster(roster, submitted);
      expect(shared).toEqual([]);
      matches.forEach((m, i) => {
        if (submitted.includes(folderOf[i])) expect(m, students[i].student).toMatchObject({ name: folderOf[i] });
        else expect(m.kind, students[i].student).toBe('none');
      });
    }
  });
});
