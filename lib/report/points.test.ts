import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { GradedCase } from '../../tests/cases';
import { parseLatePolicy, withLatePenalty, type LatePolicy } from '../late/policy';
import type { CaseStatus, SubmissionResult } from '../model/result';
import { CauseBook } from './causes';
import { MISTAKES } from '../../tests/diagnosis/catalogue';
import { gridData } from './courseGrid';
import { gradebookCsv, rowFromResult } from './csv';
import { canvasCsv, csvRecords, longCsv, parseCsv } from './exports';
import { toGradescope } from './gradescope';
import { apportionUnits, shownScore, toUnits } from './points';
import { caseResult, submission } from './sampleResults';
import { FUNCTIONS } from '../../adapters/functions';

const TERMS = { functions: FUNCTIONS, causes: new CauseBook(MISTAKES) };

/** Points a course may declare: sixty-fourths, sixteenths, quarters, thirds, tenths, whole points. */
function drawPoints(random: () => number): number {
  const kinds = [() => Math.ceil(random() * 8) / 64, () => Math.ceil(random() * 8) / 16, () => Math.ceil(random() * 8) / 4,
    () => Math.ceil(random() * 5) / 3, () => Math.ceil(random() * 9) / 10, () => Math.ceil(random() * 3)];
  return kinds[Math.floor(random() * kinds.length)]();
}

const DUE = Date.parse('2026-12-01T23:59:00Z');

/** A late policy drawn at random: per hour or day, a percentage or points, a cap or none. */
function drawPolicy(random: () => number): LatePolicy {
  const penalty = random() < 0.5 ? `${Math.ceil(random() * 30)}%` : `${Math.ceil(random() * 20) / 8}`;
  const cap = random() < 0.5 ? `,cap=${Math.ceil(random() * 90)}%` : '';
  return parseLatePolicy(`due=2026-12-01T23:59Z,per=${random() < 0.5 ? 'hour' : 'day'},penalty=${penalty}${cap}`, true) as LatePolicy;
}

describe('toUnits', () => {
  it('half away from 0, float noise below a millionth of a unit no half', () => {
    expect([toUnits(12.846875), toUnits(0.125), toUnits(0.015625), toUnits(1.005), toUnits(-0.125), toUnits(0.1 + 0.2)]).toEqual([1285, 13, 2, 101, -13, 30]);
    expect([toUnits(0.015625, 6), toUnits(12.846875, 1), toUnits(2.5, 0)]).toEqual([15625, 128, 3]);
  });
});

describe('apportionUnits', () => {
  it('random values at every precision: cells add up to the rounded sum, each less than a unit from its value, values on the grid kept', () => {
    const random = seedrandom('apportion');
    for (let draw = 0; draw < 400; draw++) {
      const decimals = Math.floor(random() * 7);
      const values = Array.from({ length: 1 + Math.floor(random() * 40) }, () => (random() < 0.1 ? undefined : random() < 0.3 ? 0 : drawPoints(random)));
      const shown = apportionUnits(values, undefined, decimals);
      const exact = values.map((v) => (v === undefined ? undefined : v * 10 ** decimals));
      expect(shown.reduce<number>((s, x) => s + (x ?? 0), 0), `draw ${draw}`).toBe(toUnits(values.reduce<number>((s, v) => s + (v ?? 0), 0), decimals));
      for (const [i, units] of shown.entries()) {
        if (exact[i] === undefined) expect(units).toBeUndefined();
        else {
          expect(Math.abs(units! - exact[i]!)).toBeLessThan(1);
          if (Math.abs(exact[i]! - Math.round(exact[i]!)) < 1e-9) expect(units).toBe(Math.round(exact[i]!));
        }
      }
    }
  });

  it('sixteen tests of 1/64 at two decimals: 0.25 together, nine of them 0.02 and seven 0.01, in the table\'s order', () => {
    expect(apportionUnits(Array(16).fill(1 / 64))).toEqual([...Array(9).fill(2), ...Array(7).fill(1)]);
  });
});

describe('shownScore', () => {
  it('random points and late penalties: the cells less the penalty are the score, and the score is the exact one rounded', () => {
    const random = seedrandom('shown');
    for (let draw = 0; draw < 400; draw++) {
      const decimals = Math.floor(random() * 4);
      const cases = Array.from({ length: 1 + Math.floor(random() * 30) }, (_, i) => {
        const maxPoints = drawPoints(random);
        return caseResult(`test_${i}`, { maxPoints, status: random() < 0.7 ? 'passed' : 'failed' });
      });
      const late = withLatePenalty(submission('s', cases), drawPolicy(random), { submittedMs: DUE + random() * 5 * 86_400_000, source: 'times' });
      const shown = shownScore(cases.map((c) => c.points), late.late!.before, late.score, decimals);
      const cellSum = shown.cells.reduce<number>((s, x) => s + (x ?? 0), 0);
      expect(cellSum, `draw ${draw}`).toBe(shown.points);
      expect(cellSum - shown.penalty).toBe(shown.total);
      expect(shown.total).toBe(toUnits(late.score, decimals));
      expect(Math.abs(shown.penalty - late.late!.penalty * 10 ** decimals)).toBeLessThanOrEqual(1);
    }
  });
});

/** Names a course has: accents in both Unicode forms, commas, quotes, apostrophes, a line break, another script. */
function drawName(random: () => number, i: number): string {
  const parts = ['José', 'Núñez', 'Zoë', "O'Brien", 'Smith, Jr.', 'say "hi"', 'Łukasz', '山田', 'Ana\u0301', 'Renée\nB', 'Ægir', 'student'];
  const pick = () => parts[Math.floor(random() * parts.length)];
  return `${pick()} ${pick()} ${i}`;
}

describe('the gradebook files show the same points', () => {
  it('a random course: grades.csv, grades-long.csv, canvas.csv and the report agree, and each row adds up', () => {
    const random = seedrandom('gradebook');
    const table: GradedCase[] = Array.from({ length: 24 }, (_, i) => ({
      name: `test_${i}`, fn: 'softmax', points: drawPoints(random), fixture: 'x', hidden: i > 15, tolerance: { atol: 0, rtol: 0 }, checks: [], what: '',
    }));
    const statuses: CaseStatus[] = ['passed', 'passed', 'passed', 'failed', 'timeout', 'error'];
    const policy = drawPolicy(random);
    const results: SubmissionResult[] = Array.from({ length: 60 }, (_, s) => {
      const result = submission(drawName(random, s), table.map((c) => caseResult(c.name, { fn: c.fn, maxPoints: c.points, status: statuses[Math.floor(random() * statuses.length)] })));
      return withLatePenalty(result, policy, { submittedMs: DUE + (random() - 0.5) * 4 * 86_400_000, source: 'times' });
    });
    const names = table.map((c) => c.name);
    const rows = results.map(rowFromResult);
    const gradesCsv = gradebookCsv(rows, names, { late: true });
    expect(gradesCsv.startsWith('\uFEFF"name",')).toBe(true);
    const grades = new Map(csvRecords(gradesCsv).map((r) => [r.name, r]));
    // Every name comes back as it went in, accents, commas, quotes and line breaks included.
    expect([...grades.keys()].sort()).toEqual(results.map((r) => r.name).sort());
    const units = (text: string) => Math.round(Number(text) * 100);
    for (const r of grades.values()) {
      const cells = names.map((n) => units(r[n]));
      expect(cells.reduce((a, b) => a + b, 0), r.name).toBe(units(r['points before penalty']));
      expect(units(r['points before penalty']) - units(r['late penalty']), r.name).toBe(units(r.total));
      for (const n of names) expect(r[n]).toMatch(/^\d+(\.\d{1,2})?$/);
    }

    const byGradescope = new Map(results.map((r) => [r.name, toGradescope(r)]));
    const long = csvRecords(longCsv(results.map((r) => ({ name: r.name, results: byGradescope.get(r.name) })), table, TERMS));
    for (const line of long) expect(line.points, `${line.submission} ${line.test}`).toBe(grades.get(line.submission)![line.test]);

    const canvas = parseCsv(canvasCsv(rows, [], 'A').csv).slice(1);
    for (const line of canvas) expect(line[5]).toBe(grades.get(line[0].replace('(not in the roster) ', ''))!.total);

    const graded = results.map((r) => ({ name: r.name, results: byGradescope.get(r.name)! }));
    const grid = JSON.parse(gridData(graded, table, TERMS, TERMS.causes.tally(graded))) as { late: number; rows: [string, string, number, number, ([number, number] | null)[], [number, number]][] };
    expect(grid.late).toBe(1);
    for (const [name, , score, , cells, [points, penalty]] of grid.rows) {
      const row = grades.get(name)!;
      expect(cells.map((c) => (c ? units(String(c[1])) : 0)).reduce((a, b) => a + b, 0), name).toBe(units(String(points)));
      expect(units(String(points)) - units(String(penalty)), name).toBe(units(String(score)));
      expect([points, penalty, score].map(String)).toEqual([row['points before penalty'], row['late penalty'], row.total]);
    }
  });
});
