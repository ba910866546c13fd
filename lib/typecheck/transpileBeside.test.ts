/**
 * A submission graded alone is transpiled in its own checking process (run.ts, TranspileBeside),
 * first, and checked after: the same outcomes as the transpiling pool's (transpilePool.test.ts),
 * and its note whatever became of the transpile.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TranspileOutcome } from '../sandbox/transpilePool';
import { transpileSubmission } from '../sandbox/transpile';
import type { TranspileJob } from '../sandbox/prepared';
import { startTypeCheck, type TranspileBeside } from './run';

/** This process's checking processes (main.ts). */
function checkers(): number[] {
  return fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).flatMap((entry) => {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return ppid === process.pid && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('typecheck/main.ts') ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

const index = `import { Tensor } from './lib/tensor';
import { big } from './helper';
export function softmax(x: Tensor, dim: number): Tensor { return x.sum(dim, true).add(big.length); }
`;
/** Honest code, but much of it for TypeScript: a few hundred ms to transpile. */
const helper = `export const big: number[] = [${Array.from({ length: 30_000 }, (_, i) => `${i} * 2`).join(', ')}];\nexport const wrong: number = 'x';\n`;
const job: TranspileJob = { files: { 'index.ts': index, 'helper.ts': helper }, entry: 'index.ts', label: 'alone' };
const submission = { name: 'alone', label: 'alone', entry: 'index.ts', files: job.files };
const typeNote = /^Type errors \(no points; `npm run typecheck` shows them\):\nalone\/helper\.ts:2:14: error TS2322/;

/** Checks `submission` with its transpile beside; `checked` is told as TypeScript starts transpiling. */
function beside(limitMs: number, checked?: () => void) {
  let done!: (outcome: TranspileOutcome | Error) => void;
  const outcome = new Promise<TranspileOutcome | Error>((resolve) => (done = resolve));
  const transpile: TranspileBeside = { job, limitMs, checked, done };
  const notes = startTypeCheck([submission], { submissionMs: 60_000, setupMs: 60_000 }, undefined, undefined, transpile);
  return { outcome, notes };
}

describe('a submission transpiled in its own checking process', () => {
  it("gives what the transpiling process gives, tells when the load check has passed, then the submission's type note", async () => {
    let told = 0;
    const { outcome, notes } = beside(30_000, () => told++);
    expect(await outcome).toEqual({ kind: 'done', prepared: transpileSubmission(job) });
    expect(told).toBe(1);
    expect(await notes('alone')).toEqual([expect.stringMatching(typeNote)]);
  });

  it('a transpile past its limit of CPU time is a timeout naming the file it was reading; the note still comes', async () => {
    const { outcome, notes } = beside(50);
    expect(await outcome).toEqual({ kind: 'timeout', file: 'alone/helper.ts' });
    expect(await notes('alone')).toEqual([expect.stringMatching(typeNote)]);
  });

  it('a process that dies while it transpiles (SIGSEGV) fails that transpile, naming the file; the note still comes', async () => {
    const before = new Set(checkers());
    let killed = false;
    const { outcome, notes } = beside(30_000, () => {
      for (const pid of checkers()) {
        if (before.has(pid) || killed) continue;
        process.kill(pid, 'SIGSEGV');
        killed = true;
      }
    });
    const result = await outcome;
    expect(killed).toBe(true);
    expect(result).toEqual({ kind: 'failed', message: 'the transpiler stopped (SIGSEGV)', file: expect.stringMatching(/^alone\/(index|helper)\.ts$/) });
    expect(await notes('alone')).toEqual([expect.stringMatching(typeNote)]);
  });

  it('a file nested past the bound: the transpile still comes, as a load error naming the place; the note says why it was not checked', async () => {
    const deep = `export const zz = ${'`${'.repeat(20_000)}1${'}`'.repeat(20_000)};\n`;
    let done!: (outcome: TranspileOutcome | Error) => void;
    const outcome = new Promise<TranspileOutcome | Error>((resolve) => (done = resolve));
    const deepJob: TranspileJob = { files: { 'index.ts': "export * from './helper';\n", 'helper.ts': deep }, entry: 'index.ts', label: 'deep' };
    const notes = startTypeCheck([{ name: 'deep', ...deepJob }], undefined, undefined, undefined, { job: deepJob, limitMs: 30_000, done });
    const result = await outcome;
    expect(result).toMatchObject({ kind: 'done', prepared: { loadErrors: [expect.stringMatching(/^nesting too deep at deep\/helper\.ts:1:\d+/)] } });
    expect(await notes('deep')).toEqual([expect.stringMatching(/^Type errors \(no points\): not checked, nesting too deep at deep\/helper\.ts:1:\d+: /)]);
  });
});
