/**
 * A worker thread of the audit: grades the mutants it is sent (run.ts), one at a time, with the
 * fixtures read once. Started by pool.ts through scripts/runTs.js.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadCaseFixtures } from '../../lib/grading/grade';
import { ASSIGNMENT } from '../../tests/assignment';
import { gradeMutant } from './run';

export interface Job {
  id: string;
  files: Record<string, string>;
  entry: string;
  label: string;
}

const fixtures = loadCaseFixtures(ASSIGNMENT, ASSIGNMENT.cases);
const { limitMs } = workerData as { limitMs: number };

parentPort!.on('message', (job: Job) => {
  // This thread's CPU time, so that a figure says what the audit costs whatever else runs on the machine.
  const cpu = process.cpuUsage();
  const cpuMs = () => {
    const { user, system } = process.cpuUsage(cpu);
    return (user + system) / 1000;
  };
  gradeMutant(ASSIGNMENT, job.files, job.entry, job.label, ASSIGNMENT.cases, fixtures, limitMs).then(
    (result) => parentPort!.postMessage({ id: job.id, result, cpuMs: cpuMs() }),
    (err: unknown) => parentPort!.postMessage({ id: job.id, result: `the audit failed on it: ${(err as Error)?.stack ?? String(err)}`, cpuMs: cpuMs() }),
  );
});
parentPort!.postMessage({ ready: true });
