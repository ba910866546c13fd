/**
 * A submission graded alone is transpiled in its own checking process (run.ts, TranspileBeside),
 * first, and checked after: the same outcomes as the transpiling pool's (transpilePool.test.ts),
 * and its note whatever became of the transpile.
 */
import { describe, expect, it } from 'vitest';
import { ownChildren } from '../sandbox/ownChildren.testkit';
import type { TranspileOutcome } from '../sandbox/transpilePool';
import { transpileSubmission } from '../sandbox/transpile';
import type { TranspileJob } from '../sandbox/prepared';
import { startTypeCheck, type TranspileBeside } from './run';

/** This process's checking processes (main.ts). */
const checkers = () => [...ownChildren('typecheck/main.ts').keys()];

const source = (size: number) => `import { Tensor } from './lib/tensor';
export const big: number[] = [${Array.from({ length: size }, (_, i) => `${i} * 2`).join(', ')}];
export function softmax(x: Tensor, dim: number): Tensor { return x.sum(dim, true).add(big.length); }
export const wrong: number = 'x';
`;
const typeNote = /^Type errors \(no points; `npm run typecheck` shows them\):\nalone\/index\.ts:4:14: error TS2322/;

/**
 * Checks a submission of one file with its transpile beside; `checked` is told as TypeScript
 * starts transpiling. `size`: 80,000 is honest code, but most of a second for TypeScript to
 * transpile, so that a limit or a kill strikes while it reads that file.
 */
function beside(size: number, limitMs: number, checked?: () => void) {
  const job: TranspileJob = { files: { 'index.ts': source(size) }, entry: 'index.ts', label: 'alone' };
  let done!: (outcome: TranspileOutcome | Error) => void;
  const outcome = new Promise<TranspileOutcome | Error>((resolve) => (done = resolve));
  const transpile: TranspileBeside = { job, limitMs, checked, done };
  const notes = startTypeCheck([{ name: 'alone', ...job }], { submissionMs: 60_000, setupMs: 60_000 }, undefined, undefined, transpile);
  return { job, outcome, notes };
}

describe('a submission transpiled in its own checking process', () => {
  it("gives what the transpiling process gives, tells when the load check has passed, then the submission's type note", async () => {
    let told = 0;
    const { job, outcome, notes } = beside(10, 30_000, () => told++);
    expect(await outcome).toEqual({ kind: 'done', prepared: transpileSubmission(job) });
    expect(told).toBe(1);
    expect(await notes('alone')).toEqual([expect.stringMatching(typeNote)]);
  });

  it('a transpile past its limit of CPU time is a timeout naming the file it was reading; the note still comes', async () => {
    const { outcome, notes } = beside(80_000, 50);
    expect(await outcome).toEqual({ kind: 'timeout', file: 'alone/index.ts' });
    expect(await notes('alone')).toEqual([expect.stringMatching(typeNote)]);
  });

  it('a process that dies while it transpiles (SIGSEGV) fails that transpile, naming the file; the note still comes', async () => {
    const before = new Set(checkers());
    let killed = false;
    const { outcome, notes } = beside(80_000, 30_000, () => {
      for (const pid of checkers()) {
        if (before.has(pid) || killed) continue;
        process.kill(pid, 'SIGSEGV');
        killed = true;
      }
    });
    const result = await outcome;
    expect(killed).toBe(true);
    expect(result).toEqual({ kind: 'failed', message: 'the transpiler stopped (SIGSEGV)', file: 'alone/index.ts' });
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
