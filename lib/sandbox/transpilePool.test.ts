/**
 * Transpiling happens in worker threads under a time limit: a job past its limit ends as a
 * timeout (its worker is replaced, the next job is served), the grader's event loop keeps running
 * meanwhile, and a file that does not parse is a load error naming its line.
 */
import { describe, expect, it } from 'vitest';
import { transpileInWorker, warmTranspiler } from './transpilePool';

const job = (source: string) => ({ files: { 'index.ts': source }, entry: 'index.ts', label: 'student' });
/** Much more code than any submission: TypeScript needs well over a millisecond for it. */
const big = Array.from({ length: 20_000 }, (_, i) => `export const v${i}: number = ${i} * 2;`).join('\n');

describe('transpileInWorker', () => {
  it('a job past its limit is a timeout; the next job is served by a fresh worker', async () => {
    await warmTranspiler();
    expect((await transpileInWorker(job(big), 1)).kind).toBe('timeout');
    const next = await transpileInWorker(job('export const x = 1;\n'), 30_000);
    expect(next.kind).toBe('done');
  });

  it("the grader's event loop runs while a worker transpiles", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const outcome = await transpileInWorker(job(big), 60_000);
    clearInterval(timer);
    expect(outcome.kind).toBe('done');
    expect(ticks).toBeGreaterThan(0);
  });

  it('a syntax error is a load error with the file and line; an import of a missing file too', async () => {
    const broken = await transpileInWorker(job('export const x = [1, 2;\n'), 30_000);
    expect(broken.kind === 'done' && broken.prepared.loadErrors).toEqual([expect.stringMatching(/^syntax error at student\/index\.ts:1:\d+: /)]);
    const missing = await transpileInWorker(job("export * from './helpers';\n"), 30_000);
    expect(missing.kind === 'done' && missing.prepared.loadErrors[0]).toMatch(/\.\/helpers/);
  });
});
