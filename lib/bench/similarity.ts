/**
 * The similarity check at scale (`npm run bench`): the whole of `npm run similarity` on a folder of
 * submissions, against reading and tokenising the same folder alone (the intake, the parser and the
 * scanner, which any check must do), so that the figure says what the index, the scores and the page
 * cost on top. Both are timed in this process, alternately, best of `runs`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collect } from '../similarity/collect';
import { runSimilarity } from '../similarity/run';
import { elapsedMs } from './measure';

export interface SimilarityBench {
  submissions: number;
  /** Reading (intake) and tokenising every submission, best run. */
  tokeniseMs: number;
  /** The whole check: the same, then the index, the candidate pairs' scores, similarity.csv and similarity.html. */
  totalMs: number;
  /** CPU time of this process, every thread, and of its reading children (lib/similarity/readers.ts), in the same best runs: what another load changes least. */
  tokeniseCpuMs: number;
  totalCpuMs: number;
  flagged: number;
  groups: number;
}

export const SIMILARITY_GOAL_MS = 10_000;
/** The whole check is to take at most this many times reading and tokenising (issue 31). */
export const SIMILARITY_GOAL_RATIO = 1.5;

/** CPU time of this process's children that have ended (Linux's /proc/self/stat cutime and cstime, in ticks of 1/100 s); 0 elsewhere. */
function endedChildrenCpuMs(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

const cpuNow = () => {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + endedChildrenCpuMs();
};

export async function measureSimilarity(submissions: string, count: number, runs = 3): Promise<SimilarityBench> {
  const best = { tokeniseMs: Infinity, totalMs: Infinity, tokeniseCpuMs: Infinity, totalCpuMs: Infinity };
  let flagged = 0;
  let groups = 0;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-similarity-'));
  try {
    for (let run = 0; run < runs; run++) {
      let [start, cpu] = [process.hrtime.bigint(), cpuNow()];
      await collect(submissions);
      best.tokeniseMs = Math.min(best.tokeniseMs, elapsedMs(start));
      best.tokeniseCpuMs = Math.min(best.tokeniseCpuMs, cpuNow() - cpu);
      [start, cpu] = [process.hrtime.bigint(), cpuNow()];
      const outcome = await runSimilarity({ submissions, out });
      best.totalMs = Math.min(best.totalMs, elapsedMs(start));
      best.totalCpuMs = Math.min(best.totalCpuMs, cpuNow() - cpu);
      [flagged, groups] = [outcome.flagged.length, outcome.groups.length];
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  return { submissions: count, ...best, flagged, groups };
}

const s1 = (ms: number) => (ms / 1000).toFixed(2);

/** The section of docs/benchmarks.md, under its heading. */
export function similaritySection(r: SimilarityBench): string[] {
  return [
    '## Code similarity',
    '',
    `${r.submissions} typical submissions (the catalogue's correct and buggy ones, round robin: many share helper files, so `
      + `${r.flagged} pairs reach the threshold and ${r.groups} groups form, far more than a real course), the handout (the stubs of student/ as committed) subtracted. `
      + 'Best of 3 runs in one process. Also on its own: `npm run bench:similarity`.',
    '',
    '| step | wall time | CPU time, all threads and child processes |',
    '| --- | --- | --- |',
    `| read (intake) and tokenise every submission (TypeScript's parser and scanner, in child processes) | ${s1(r.tokeniseMs)} s | ${s1(r.tokeniseCpuMs)} s |`,
    `| \`npm run similarity\` whole: the same, the fingerprint index, the scores of the pairs that share a fingerprint, the listed pairs' fragments, similarity.csv and similarity.html | ${s1(r.totalMs)} s | ${s1(r.totalCpuMs)} s |`,
    '',
    `Ratio whole check / reading and tokenising: **${(r.totalMs / r.tokeniseMs).toFixed(2)}×** in wall time (goal ≤ ${SIMILARITY_GOAL_RATIO}×: `
      + `${r.totalMs / r.tokeniseMs <= SIMILARITY_GOAL_RATIO ? 'met' : 'not met'}), ${(r.totalCpuMs / r.tokeniseCpuMs).toFixed(2)}× in CPU time. `
      + `Goal: ${r.submissions} submissions under ${SIMILARITY_GOAL_MS / 1000} s: ${r.totalMs < SIMILARITY_GOAL_MS ? 'met' : 'not met'}.`,
  ];
}
