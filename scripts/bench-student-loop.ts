/**
 * npm run bench:student-loop [-- --runs N]
 *
 * The student loop, measured: `vitest run -t scaled_dot_product` with the reference in place,
 * against an empty vitest run (one empty test, default config) on the same machine, alternating
 * so that both see the same load. Prints medians and the ratio; the target is ≤ 1.3×.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { PROJECT_ROOT } from '../lib/paths';

const flags = parseFlags(process.argv.slice(2), { runs: 'number' }, 'npm run bench:student-loop [-- --runs N]');
const runs = flags.runs ?? 7;
const vitest = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');

const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'empty-vitest-'));
fs.writeFileSync(path.join(empty, 'empty.test.ts'), "import { test } from 'vitest';\ntest('empty', () => {});\n");
fs.writeFileSync(path.join(empty, 'vitest.config.mjs'), 'export default {};\n');

function timeRun(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [vitest, 'run', ...args], { cwd, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`vitest ${args.join(' ')} failed in ${cwd}:\n${result.stdout}${result.stderr}`);
  return ms;
}

const studentLoop = () =>
  timeRun(['-t', 'scaled_dot_product'], PROJECT_ROOT, { ...process.env, ATTENTION_SUBMISSION: 'reference' });
const emptyRun = () => timeRun([], empty);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// The first run on a fresh clone fills vitest's module cache (vitest.config.mts); later runs reuse
// it, re-transforming only the files that changed, such as the student's.
fs.rmSync(path.join(PROJECT_ROOT, 'node_modules', '.experimental-vitest-cache'), { recursive: true, force: true });
const cold = studentLoop();
emptyRun();
const loop: number[] = [];
const base: number[] = [];
for (let i = 0; i < runs; i++) {
  loop.push(studentLoop());
  base.push(emptyRun());
}
fs.rmSync(empty, { recursive: true, force: true });

const ratio = median(loop) / median(base);
console.log(`machine: ${os.cpus().length} cores, Node ${process.version}, ${runs} alternating runs each`);
console.log(`| run | median wall time |`);
console.log(`| --- | --- |`);
console.log(`| empty vitest run (one empty test) | ${median(base).toFixed(0)} ms |`);
console.log(`| npm test -- -t scaled_dot_product, reference in place | ${median(loop).toFixed(0)} ms |`);
console.log(`| same, first run on a fresh clone (empty module cache) | ${cold.toFixed(0)} ms |`);
console.log(`ratio student loop / empty run: ${ratio.toFixed(2)}× (target ≤ 1.3×)`);
