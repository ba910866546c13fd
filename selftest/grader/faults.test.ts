/**
 * One function's faults never cost another function's tests (issue 28: an attention that hit the
 * memory cap on every call spent the whole budget, and the same submission's hidden softmax and
 * causal tests timed out). For each graded function and each kind of fault, a submission whose
 * function has it, graded on every case, hidden ones too: every other function keeps every point;
 * the function's first test says what happened, and its other tests fail at once, naming it (a
 * hang is hangs.test.ts's). A function too slow for its share of the budget spends that share and
 * no more. And a fault inside attention, called by the student's own multi-head attention, is
 * multi-head's (the call the grader made): attention's own tests meet it on their own calls.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPORT_NAMES } from '../../adapters';
import { loadCaseFixtures, prepareChild } from '../../lib/grading/grade';
import { didNotReturn, notRunAfterFault, shareSpent, type Fault } from '../../lib/grading/hangWords';
import type { SubmissionResult } from '../../lib/model/result';
import { GRADED_CASES, type GradedFunction } from '../../tests/cases';
import { grade, gradeOptions } from './harness';
import { materialize, tempDir } from './materialize';
import { ASSIGNMENT } from '../../tests/assignment';

const work = tempDir('faults');
const everyCase = { cases: GRADED_CASES, fixtures: loadCaseFixtures(ASSIGNMENT, GRADED_CASES) };
const FUNCTIONS = Object.keys(EXPORT_NAMES) as GradedFunction[];
/** Low enough that a heap bomb reaches it in a second or two of the child's CPU. */
const MEMORY_BYTES = 256 * 1024 ** 2;
const lowMemory = prepareChild(MEMORY_BYTES);

/** A submission that is base.ts (correct) but for `fn`, whose body is `body`. */
function submission(name: string, fn: GradedFunction, body: string): string {
  const dir = materialize(path.join(__dirname, 'misbehaving', 'base.ts'), work, name);
  fs.writeFileSync(path.join(dir, 'index.ts'), `export * from './base';\n// eslint-disable-next-line @typescript-eslint/no-explicit-any\nexport function ${EXPORT_NAMES[fn]}(...args: any[]): any {\n${body}\n}\n`);
  return dir;
}

const FAULTS = {
  /** Fills the heap until the process dies at the cap. */
  memory: '  const kept: number[][] = [];\n  for (;;) kept.push(new Array(1 << 16).fill(args.length));',
  /** Writes around the capture, straight to the process's stderr, until the grader's cap on output. */
  flood: "  const line = 'x'.repeat(1 << 20);\n  for (;;) (process as unknown as { _rawDebug(s: string): void })._rawDebug(line);",
} as const;

const own = (result: SubmissionResult, fn: GradedFunction) => result.cases.filter((c) => c.fn === fn);
const others = (result: SubmissionResult, fn: GradedFunction) =>
  result.cases.filter((c) => c.fn !== fn && c.status !== 'passed').map((c) => `${c.name}: ${c.reason}`);

describe('a fault costs its own function only', () => {
  for (const [kind, body] of Object.entries(FAULTS) as [keyof typeof FAULTS, string][]) {
    for (const fn of FUNCTIONS) {
      it(`${EXPORT_NAMES[fn]} ${kind === 'memory' ? 'reaches the memory cap' : 'floods its output'}: every other function keeps all its points, hidden ones included`, async () => {
        const name = `${kind}_in_${fn}`;
        // Less budget than one function's share would need for a fault on each of its cases.
        const result = await grade(submission(name, fn, body), name, { ...gradeOptions(), ...everyCase, child: lowMemory, timeoutMs: 8000, budgetMs: 4 * 8000 });
        expect(others(result, fn)).toEqual([]);
        const [first, ...rest] = own(result, fn);
        const fault: Fault = kind === 'memory' ? { kind, capBytes: MEMORY_BYTES } : { kind };
        expect(first.reason).toMatch(kind === 'memory' ? /reached the memory limit of 256 MiB/ : /flooded its output/);
        // One status for every test the fault cost, the one it happened in too.
        expect(new Set(own(result, fn).map((c) => c.status))).toEqual(new Set([kind === 'memory' ? 'crashed' : 'error']));
        for (const c of rest) expect(`${c.name}: ${c.reason}`).toBe(`${c.name}: ${notRunAfterFault(EXPORT_NAMES[fn], fault, first.name)}`);
      });
    }
  }

  for (const fn of FUNCTIONS) {
    it(`${EXPORT_NAMES[fn]} is too slow for its share of the budget: it spends its share, every other function keeps all its points`, async () => {
      const name = `slow_${fn}`;
      // 300 ms of the process's CPU a call (what the grader charges), read now and then: three calls
      // and part of a fourth spend a share of one second.
      const body = [
        '  const spent = () => { const { user, system } = process.cpuUsage(); return user + system; };',
        '  const end = spent() + 300_000;',
        '  for (let x = 0; spent() < end; ) for (let i = 0; i < 1e6; i++) x += i;',
        '  throw new Error("slow, then wrong");',
      ].join('\n');
      const budgetMs = 4 * 1000;
      const result = await grade(submission(name, fn, body), name, { ...gradeOptions(), ...everyCase, timeoutMs: 5000, budgetMs });
      expect(others(result, fn)).toEqual([]);
      const cases = own(result, fn);
      const spent = cases.filter((c) => c.reason.startsWith('not run') || c.reason.startsWith('not finished'));
      expect(spent.length, cases.map((c) => c.reason).join('\n')).toBeGreaterThan(0);
      for (const c of spent) expect([shareSpent(EXPORT_NAMES[fn], 1000, budgetMs, false), shareSpent(EXPORT_NAMES[fn], 1000, budgetMs, true)]).toContain(c.reason);
      // Calls were made until the share was spent: the first ones ran, and threw.
      expect(cases[0].reason).toMatch(/slow, then wrong/);
    });
  }

  it("a hang in attention called by the student's own multi-head attention is multi-head's; softmax and causalMask keep all their points", async () => {
    const dir = materialize(path.join(__dirname, 'misbehaving', 'base.ts'), work, 'hang_in_own_attention');
    fs.writeFileSync(
      path.join(dir, 'index.ts'),
      "import type { Tensor } from '../lib/tensor';\nimport { mergeHeads, splitHeads, type Weights } from './base';\nexport { softmax, causalMask } from './base';\n" +
        'export function scaledDotProductAttention(Q: Tensor, _K: Tensor, _V: Tensor, _mask?: Tensor): Tensor {\n  for (;;) if (Q.ndim < 0) return Q;\n}\n' +
        'export function multiHeadSelfAttention(x: Tensor, w: Weights, numHeads: number, mask?: Tensor): Tensor {\n' +
        '  const h = (p: Tensor) => splitHeads(x.matmul(p.transpose(0, 1)), numHeads);\n' +
        '  return mergeHeads(scaledDotProductAttention(h(w.qProj), h(w.kProj), h(w.vProj), mask)).matmul(w.oProj.transpose(0, 1));\n}\n',
    );
    const limit = 500;
    const result = await grade(dir, 'hang_in_own_attention', { ...gradeOptions(), ...everyCase, timeoutMs: limit, budgetMs: 4 * 4 * limit });
    expect(result.cases.filter((c) => (c.fn === 'softmax' || c.fn === 'causal_mask') && c.status !== 'passed')).toEqual([]);
    for (const fn of ['scaled_dot_product_attention', 'multihead_self_attention'] as const) {
      const [first, ...rest] = own(result, fn);
      expect(first.reason).toBe(didNotReturn(EXPORT_NAMES[fn], limit));
      for (const c of rest) expect(c.reason).toBe(notRunAfterFault(EXPORT_NAMES[fn], { kind: 'hang', timeoutMs: limit }, first.name));
    }
  });
});
