/**
 * Ctrl-C (SIGINT) or a `kill` (SIGTERM, as a CI job's cancel sends) during a batch: grading stops,
 * every child is killed, and the batch still writes grades.csv, batch.json and the report for what
 * finished, then exits with the shell's code for the signal (128 + its number). What was being
 * graded is not written: the next run (the same command) grades it and keeps the rest. A second
 * signal while that is written exits at once.
 */

export type StopSignal = 'SIGINT' | 'SIGTERM';

export const SIGNAL_EXIT_CODE: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/** What the work in flight ends with when the batch is interrupted: not the submission's doing, and not written. */
export class Interrupted extends Error {
  override name = 'Interrupted';
  constructor(readonly signal: StopSignal) {
    super(`interrupted by ${signal}`);
  }
}

/** Calls `stop` on the first SIGINT or SIGTERM; a second exits at once. Returns what removes the handlers. */
export function onStopSignal(stop: (signal: StopSignal) => void): () => void {
  let stopped = false;
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
    const handler = () => {
      if (stopped) process.exit(SIGNAL_EXIT_CODE[signal]);
      stopped = true;
      stop(signal);
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}

/** The line a run that was interrupted ends with. */
export function interruptedLine(graded: number, total: number): string {
  return `interrupted: ${graded} of ${total} graded; run the same command to resume`;
}
