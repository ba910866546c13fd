/**
 * Never finishes loading, and ignores the signals a polite grader would send. The grader must kill
 * it at the time limit and report every test as timed out, with no points.
 */
export * from './base';

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => undefined);
for (;;) {
  // spin
}
