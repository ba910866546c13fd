/**
 * npm run bench:batch [-- --count N]
 *
 * Batch grading throughput, measured: N typical submissions (the catalogue's correct and buggy
 * ones, round robin) graded by `npm run grade -- --submissions` with one job per core, against a
 * vitest process per submission, also one per core. Both are whole commands timed wall-clock.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { PROJECT_ROOT } from '../lib/paths';
import { BUGS, CORRECT } from '../selftest/catalogue';
import { materialize } from '../selftest/grader/materialize';

const flags = parseFlags(process.argv.slice(2), { count: 'number' }, 'npm run bench:batch [-- --count N]');
const count = flags.count ?? 120;
const jobs = os.availableParallelism();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-batch-'));
const submissions = path.join(work, 'submissions');
const pool = [...CORRECT.filter((e) => e.name !== 'reference'), ...BUGS];
for (let i = 0; i < count; i++) materialize(pool[i % pool.length].file, submissions, `s${String(i).padStart(3, '0')}`);
const names = fs.readdirSync(submissions).sort();

const bin = (pkg: string, file: string) => path.join(PROJECT_ROOT, 'node_modules', pkg, file);
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

function timeGrader(): number {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [bin('ts-node', 'dist/bin.js'), 'scripts/grade.ts', '--submissions', submissions,
    '--out', path.join(work, 'out'), '--force', '--jobs', String(jobs)], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`grader failed:\n${run.stderr}`);
  return seconds(start);
}

/** One `vitest run` per submission, `jobs` at a time. */
async function timeVitest(subset: string[]): Promise<number> {
  const start = process.hrtime.bigint();
  const queue = [...subset];
  const worker = async () => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      await new Promise((resolve) => {
        const child = spawn(process.execPath, [bin('vitest', 'vitest.mjs'), 'run'], {
          cwd: PROJECT_ROOT, stdio: 'ignore', env: { ...process.env, ATTENTION_SUBMISSION: path.join(submissions, name) },
        });
        child.on('exit', resolve);
      });
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  return seconds(start);
}

async function main() {
  timeGrader(); // warm the child-runtime and module caches, as any second run would have them
  const graderSeconds = timeGrader();
  const vitestSubset = names.slice(0, Math.min(names.length, 20));
  const vitestSeconds = await timeVitest(vitestSubset);
  const graderRate = names.length / graderSeconds;
  const vitestRate = vitestSubset.length / vitestSeconds;
  fs.rmSync(work, { recursive: true, force: true });
  console.log(`machine: ${os.cpus().length} cores, Node ${process.version}; ${jobs} jobs each`);
  console.log('| command | submissions | wall time | submissions/s |');
  console.log('| --- | --- | --- | --- |');
  console.log(`| npm run grade -- --submissions (whole command) | ${names.length} | ${graderSeconds.toFixed(2)} s | ${graderRate.toFixed(1)} |`);
  console.log(`| a vitest run per submission | ${vitestSubset.length} | ${vitestSeconds.toFixed(2)} s | ${vitestRate.toFixed(1)} |`);
  console.log(`ratio: ${(graderRate / vitestRate).toFixed(1)}× (target: ≥ 10 submissions/s)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
