/**
 * What a submission can make the grader spend, measured: submissions that do the worst each kind
 * of thing in every graded function (answer with 200 million values, print 200,000 lines a call,
 * spin, sleep, fill the heap, exit, compute slowly), graded as `npm run grade -- --hidden` grades
 * them (10 s per test, a 60 s budget, a 2 GiB cap), with the wall time each took. What bounds each
 * is in docs/grading.md (Time limits): each function's share of the budget in charged time, one process
 * per fault, answers no larger than a right one, prints past the cap counted, not formatted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_BUDGET_MS, DEFAULT_MEMORY_BYTES, DEFAULT_TIMEOUT_MS, gradeSubmission, loadCaseFixtures, prepareChild } from '../grading/grade';
import type { CaseStatus } from '../model/result';
import type { Assignment } from '../grading/assignment';

export interface BudgetRow {
  name: string;
  /** What it does in every graded function. */
  what: string;
  wallMs: number;
  score: number;
  maxScore: number;
  /** How its tests ended: status → count. */
  statuses: Partial<Record<CaseStatus, number>>;
}

/** The body each graded function gets: `args` are its arguments, `right` base.ts's own function. */
const SUBMISSIONS: { name: string; what: string; body: string }[] = [
  { name: 'correct', what: 'answers right (the catalogue\'s base.ts)', body: 'return right(...args);' },
  { name: 'huge_answer', what: 'answers with 200 million values (800 MB)', body: 'return { shape: [200_000_000], data: new Float32Array(200_000_000) };' },
  { name: 'console_flood', what: 'prints 200,000 lines a call, then answers right', body: 'for (let i = 0; i < 200_000; i++) console.log(`row ${i}`, args.length);\n  return right(...args);' },
  { name: 'spinning_hang', what: 'never returns (a busy loop)', body: 'for (;;) if (args.length < 0) return args;' },
  { name: 'sleeping_hang', what: 'never returns (sleeps, spending no CPU)', body: 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n  return args;' },
  { name: 'heap_bomb', what: 'fills the heap until the memory cap', body: 'const kept: number[][] = [];\n  for (;;) kept.push(new Array(1 << 16).fill(args.length));' },
  { name: 'exits', what: 'calls process.exit', body: 'process.exit(3);' },
  { name: 'slow', what: 'computes 3 s of CPU a call, then answers right', body: 'const spent = () => { const { user, system } = process.cpuUsage(); return user + system; };\n  const end = spent() + 3_000_000;\n  for (let x = 0; spent() < end; ) for (let i = 0; i < 1e6; i++) x += i;\n  return right(...args);' },
];

/** Each submission: `base`, a correct solution, as base.ts, and every graded function doing the worst thing its body says. */
function layOut(assignment: Assignment, base: string, work: string, { name, body }: { name: string; body: string }): string {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(base, path.join(dir, 'base.ts'));
  const functions = assignment.functions.map(({ export: fn }) => `// eslint-disable-next-line @typescript-eslint/no-explicit-any\nexport function ${fn}(...args: any[]): any {\n  const right = (base.${fn} as (...a: unknown[]) => unknown);\n  ${body}\n}\n`);
  fs.writeFileSync(path.join(dir, 'index.ts'), `import * as base from './base';\n\n${functions.join('\n')}`);
  return dir;
}

/** Grades each submission in turn, as one `npm run grade -- --hidden` at the defaults would; `base` is a correct solution's file. */
export async function measureBudget(assignment: Assignment, base: string, work: string, log: (line: string) => void = () => undefined): Promise<BudgetRow[]> {
  const options = {
    assignment, cases: assignment.cases, fixtures: loadCaseFixtures(assignment, assignment.cases), child: prepareChild(DEFAULT_MEMORY_BYTES),
    timeoutMs: DEFAULT_TIMEOUT_MS, budgetMs: DEFAULT_BUDGET_MS, outputCap: 4096, typeNotes: async () => [],
  };
  const rows: BudgetRow[] = [];
  for (const submission of SUBMISSIONS) {
    log(`bench: ${submission.name}…`);
    const started = Date.now();
    const result = await gradeSubmission(layOut(assignment, base, work, submission), submission.name, options);
    const statuses: BudgetRow['statuses'] = {};
    for (const c of result.cases) statuses[c.status] = (statuses[c.status] ?? 0) + 1;
    rows.push({ name: submission.name, what: submission.what, wallMs: Date.now() - started, score: result.score, maxScore: result.maxScore, statuses });
  }
  return rows;
}

export function budgetTable(rows: readonly BudgetRow[]): string[] {
  const ended = (s: BudgetRow['statuses']) => Object.entries(s).map(([status, n]) => `${n} ${status}`).join(', ');
  return [
    '| submission: in every function it… | wall time | points | its 28 tests |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| \`${r.name}\`: ${r.what} | ${(r.wallMs / 1000).toFixed(1)} s | ${r.score}/${r.maxScore} | ${ended(r.statuses)} |`),
  ];
}
