/**
 * The process that transpiles submissions (transpile.ts) for the grader, one job at a time, forked
 * by transpilePool.ts. It runs as plain JavaScript from the child runtime's folder (build.ts), so it
 * starts without a TypeScript loader. Before it parses a file it says which: if the parser brings the process
 * down, the grader names that file.
 */
import { transpileSubmission, type PreparedSubmission, type TranspileJob } from './transpile';

/** What this process sends: ready, the file it starts reading, or the job's answer. */
export type WorkerMessage =
  | { ready: true }
  /** The file it starts reading, for the load check or (once the check has passed) to transpile it. */
  | { reading: string; step: 'check' | 'transpile' }
  | { ok: true; prepared: PreparedSubmission }
  | { ok: false; message: string };

const say = (message: WorkerMessage) => process.send!(message);

process.on('message', (job: TranspileJob) => {
  try {
    say({ ok: true, prepared: transpileSubmission(job, (file, step) => say({ reading: file, step })) });
  } catch (err) {
    say({ ok: false, message: (err as Error)?.message ?? String(err) });
  }
});
// The grader is gone: nothing more will come.
process.on('disconnect', () => process.exit(0));

// Imports done (TypeScript loaded): the pool starts timing jobs from here.
say({ ready: true });
