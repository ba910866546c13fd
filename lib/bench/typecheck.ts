/**
 * The student's type check, measured: `npm run typecheck` (less npm's own start) on a copy of
 * student/, run again over unchanged code (the answer kept by the first run), and after an edit
 * (a new comment: a new answer, a TypeScript program built), against an empty vitest run on the
 * same machine, alternating so that all three see the same load. The command it replaced (`tsc -p
 * . && tsc -p student`: the whole repository, then student/, every run) is timed once beside them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, RUN_TS } from '../paths';
import { median, timeNode } from './measure';

export const TYPECHECK_TARGET = 2;

export interface TypecheckResult {
  runs: number;
  emptyMs: number;
  /** A second run over unchanged code. */
  againMs: number;
  /** A run after an edit of student/index.ts (as every first run). */
  editedMs: number;
  /** `tsc -p . && tsc -p student`, once. */
  beforeMs: number;
  ratio: number;
  editedRatio: number;
}

const VITEST = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const TSC = path.join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

export function measureTypecheck(runs: number): TypecheckResult {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-typecheck-'));
  try {
    const empty = path.join(work, 'empty');
    fs.mkdirSync(empty);
    fs.writeFileSync(path.join(empty, 'empty.test.ts'), "import { test } from 'vitest';\ntest('empty', () => {});\n");
    fs.writeFileSync(path.join(empty, 'vitest.config.mjs'), 'export default {};\n');
    const student = path.join(work, 'student');
    fs.cpSync(path.join(PROJECT_ROOT, 'student'), student, { recursive: true });
    const entry = path.join(student, 'index.ts');
    const stubs = fs.readFileSync(entry, 'utf8');
    // A comment no earlier run has seen: the code's answer is not in the cache yet.
    const edit = () => fs.writeFileSync(entry, `${stubs}\n// bench ${process.pid} ${process.hrtime.bigint()}\n`);
    const typecheck = () => timeNode([RUN_TS, path.join(PROJECT_ROOT, 'scripts', 'typecheck.ts'), '--submission', student], PROJECT_ROOT);
    const emptyRun = () => timeNode([VITEST, 'run'], empty);
    // Warm-up: the scripts' transpiled modules (scripts/runTs.js) and vitest's first start.
    edit();
    typecheck();
    emptyRun();
    const again: number[] = [];
    const edited: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < runs; i++) {
      edit();
      edited.push(typecheck());
      again.push(typecheck());
      base.push(emptyRun());
    }
    const beforeMs = timeNode([TSC, '-p', '.'], PROJECT_ROOT) + timeNode([TSC, '-p', 'student'], PROJECT_ROOT);
    const [againMs, editedMs, emptyMs] = [median(again), median(edited), median(base)];
    return { runs, emptyMs, againMs, editedMs, beforeMs, ratio: againMs / emptyMs, editedRatio: editedMs / emptyMs };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export function typecheckSection(r: TypecheckResult): string[] {
  const x = (ms: number) => `${(ms / r.emptyMs).toFixed(1)}×`;
  return [
    "## The student's type check",
    '',
    'Command timed: `scripts/typecheck.ts --submission DIR` under scripts/runTs.js (what `npm run typecheck` runs, without ' +
      "npm's own start) on a copy of the stubs, alternating with `vitest run` of one empty test in an empty folder with " +
      'the default config. Also on its own: `npm run bench:typecheck`.',
    '',
    '| run | median wall time | against the empty vitest run |',
    '| --- | --- | --- |',
    `| empty vitest run (one empty test) | ${r.emptyMs.toFixed(0)} ms | 1.0× |`,
    `| \`npm run typecheck\`, second run over unchanged code (the answer kept in \`node_modules/.cache/typecheck/\`) | ${r.againMs.toFixed(0)} ms | **${x(r.againMs)}** |`,
    `| same, after an edit of \`student/index.ts\` (as any first run: a program built and checked) | ${r.editedMs.toFixed(0)} ms | ${x(r.editedMs)} |`,
    `| what it replaced: \`tsc -p . && tsc -p student\` (once) | ${r.beforeMs.toFixed(0)} ms | ${x(r.beforeMs)} |`,
    '',
    `Ratio second run / empty run: **${r.ratio.toFixed(2)}×** (target ≤ ${TYPECHECK_TARGET}×; ${r.runs} alternating runs each). ` +
      'After an edit the check builds a TypeScript program again: it parses and binds the ~160 declaration files of ' +
      "TypeScript's ES2022 library and Node's types before it checks the student's few files.",
  ];
}
