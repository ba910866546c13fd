/**
 * A hang costs its own function only (issue: a hanging attention once spent the whole budget and
 * took softmax's and causalMask's hidden points with it). For each graded function, a submission
 * whose function never returns, graded on every case, hidden ones too, under a budget far smaller
 * than the cases' limits together: every other function keeps every point, the hung function's
 * first case is a timeout in its own words, and its other cases fail at once, naming that case.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCaseFixtures } from '../../lib/grading/grade';
import { EXPORT_NAMES } from '../../adapters';
import { GRADED_CASES, type GradedFunction } from '../../tests/cases';
import { grade, gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';
import { ASSIGNMENT } from '../../tests/assignment';

const work = tempDir('hangs');
const everyCase = { cases: GRADED_CASES, fixtures: loadCaseFixtures(ASSIGNMENT, GRADED_CASES) };
const FUNCTIONS = Object.keys(EXPORT_NAMES) as GradedFunction[];

function hangingIn(fn: GradedFunction): string {
  const dir = materialize(path.join(__dirname, 'misbehaving', 'base.ts'), work, `hang_in_${fn}`);
  fs.writeFileSync(path.join(dir, 'index.ts'), `export * from './base';\n// eslint-disable-next-line @typescript-eslint/no-explicit-any\nexport function ${EXPORT_NAMES[fn]}(...args: any[]): any {\n  for (;;) if (args.length < 0) return args;\n}\n`);
  return dir;
}

describe('a hang costs its own function only', () => {
  for (const fn of FUNCTIONS) {
    it(`${EXPORT_NAMES[fn]} never returns: every other function keeps all its points, hidden ones included`, async () => {
      const limit = 500;
      // Less than the hung function's cases would take at one limit each, and far less than all of them.
      const result = await grade(hangingIn(fn), `hang_in_${fn}`, { ...gradeOptions(), ...everyCase, timeoutMs: limit, budgetMs: 4 * limit });
      const others = result.cases.filter((c) => c.fn !== fn);
      expect(others.filter((c) => c.status !== 'passed').map((c) => `${c.name}: ${c.reason}`)).toEqual([]);
      const own = result.cases.filter((c) => c.fn === fn);
      const first = own.find((c) => c.reason.includes('did not return within 0.5 s, the time limit per test'));
      expect(first, own.map((c) => c.reason).join('\n')).toBeDefined();
      for (const c of own.filter((c) => c !== first)) {
        expect(c.status).toBe('timeout');
        expect(c.reason).toBe(`not run: \`${EXPORT_NAMES[fn]}\` did not return within 0.5 s in ${first!.name}, so its other tests fail at once (one hang costs that function only)`);
      }
    });
  }
});
