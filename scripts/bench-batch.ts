/**
 * npm run bench:batch [-- --count N]: batch grading throughput against a vitest run per submission
 * (lib/bench/batch.ts), on N catalogue submissions. `npm run bench` runs it too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags } from '../lib/cli';
import { batchTable, measureBatch } from '../lib/bench/batch';
import { describeMachine, machine } from '../lib/bench/measure';
import { layOutCatalogue } from '../selftest/benchSubmissions';
import { ASSIGNMENT } from '../tests/assignment';

const flags = parseFlags(process.argv.slice(2), { count: 'number' }, 'npm run bench:batch [-- --count N]');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-batch-'));

async function main(): Promise<void> {
  const submissions = path.join(work, 'submissions');
  layOutCatalogue(submissions, flags.count ?? 120);
  const result = await measureBatch({ assignment: ASSIGNMENT, submissions, out: path.join(work, 'out'), jobs: os.availableParallelism(), vitestCount: 20 });
  console.log(`machine: ${describeMachine(machine())}`);
  console.log(batchTable(result).join('\n'));
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => fs.rmSync(work, { recursive: true, force: true }));
