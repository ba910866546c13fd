/**
 * The student loop, measured: `vitest run -t scaled_dot_product` with the reference in place (what
 * `npm test -- -t scaled_dot_product` runs, less npm's own start), against an empty vitest run (one
 * empty test, default config) on the same machine, alternating so that both see the same load.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths';
import { median, timeNode } from './measure';

export const STUDENT_LOOP_TARGET = 1.2;

export interface StudentLoopResult {
  runs: number;
  emptyMs: number;
  loopMs: number;
  /** The first run on a fresh clone, with vitest's module cache empty. */
  coldMs: number;
  ratio: number;
}

const VITEST = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const MODULE_CACHE = path.join(PROJECT_ROOT, 'node_modules', '.experimental-vitest-cache');

export function measureStudentLoop(runs: number): StudentLoopResult {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'empty-vitest-'));
  try {
    fs.writeFileSync(path.join(empty, 'empty.test.ts'), "import { test } from 'vitest';\ntest('empty', () => {});\n");
    fs.writeFileSync(path.join(empty, 'vitest.config.mjs'), 'export default {};\n');
    const env = { ...process.env, ATTENTION_SUBMISSION: 'reference' };
    const studentLoop = () => timeNode([VITEST, 'run', '-t', 'scaled_dot_product'], PROJECT_ROOT, env);
    const emptyRun = () => timeNode([VITEST, 'run'], empty);
    // The first run on a fresh clone fills vitest's module cache (vitest.config.mts); later runs
    // reuse it, re-transforming only the files that changed, such as the student's.
    fs.rmSync(MODULE_CACHE, { recursive: true, force: true });
    const coldMs = studentLoop();
    emptyRun();
    const loop: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < runs; i++) {
      loop.push(studentLoop());
      base.push(emptyRun());
    }
    const [loopMs, emptyMs] = [median(loop), median(base)];
    return { runs, emptyMs, loopMs, coldMs, ratio: loopMs / emptyMs };
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
}

export function studentLoopTable(r: StudentLoopResult): string[] {
  return [
    '| run | median wall time |',
    '| --- | --- |',
    `| empty vitest run (one empty test) | ${r.emptyMs.toFixed(0)} ms |`,
    `| \`npm test -- -t scaled_dot_product\`, reference in place | ${r.loopMs.toFixed(0)} ms |`,
    `| same, first run on a fresh clone (empty module cache) | ${r.coldMs.toFixed(0)} ms |`,
    '',
    `Ratio student loop / empty run: **${r.ratio.toFixed(2)}×** (target ≤ ${STUDENT_LOOP_TARGET}×; ${r.runs} alternating runs each).`,
  ];
}
