/**
 * The worker thread that transpiles submissions (transpile.ts), one job at a time. It runs as
 * plain JavaScript from the child runtime's folder (build.ts), so it starts without ts-node.
 */
import { parentPort } from 'node:worker_threads';
import { transpileSubmission, type TranspileJob } from './transpile';

parentPort!.on('message', (job: TranspileJob) => {
  try {
    parentPort!.postMessage({ ok: true, prepared: transpileSubmission(job) });
  } catch (err) {
    parentPort!.postMessage({ ok: false, message: (err as Error)?.message ?? String(err) });
  }
});

// Imports done (TypeScript loaded): the pool starts timing jobs from here.
parentPort!.postMessage({ ready: true });
