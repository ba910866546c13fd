/**
 * A batch's progress as `npm run grade -- --submissions` shows it: how many of how many are graded,
 * at what rate, and about how long is left. On a terminal, one line redrawn every second from the
 * start (a timer, so it moves before the first submission is done) and cleared at the end; in a
 * log (CI, a file), a line as each submission finishes, which a log keeps. What is shown is a
 * function of the counts and the time (progressWords): the tests give both, and no clock.
 */
import type { SubmissionResult } from '../model/result';
import { oneLine, truncate } from '../text/sanitise';
import { doneLine } from './terminal';

export interface Tally {
  /** Graded so far in this run. */
  done: number;
  /** To grade in this run (kept results not counted). */
  total: number;
  /** Since grading began. */
  elapsedMs: number;
}

/** `1 min 33 s`, `2 h 5 min`, `40 s`: a duration as a person reads it, to the second below a minute. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const minutes = Math.round((s % 3600) / 60);
  return minutes === 60 ? `${Math.floor(s / 3600) + 1} h` : `${Math.floor(s / 3600)} h${minutes ? ` ${minutes} min` : ''}`;
}

/** A rate in the unit that reads best: `3.1 a second`, `12 a second`, `42 a minute`. */
export function rateWords(perSecond: number): string {
  const tenths = Math.round(perSecond * 10) / 10;
  if (tenths >= 10) return `${Math.round(perSecond)} a second`;
  if (tenths >= 1) return `${tenths.toFixed(1)} a second`;
  return `${Math.max(1, Math.round(perSecond * 60))} a minute`;
}

/** `12/300, 3.1 a second, about 1 min 33 s left`; before the first is done, `0/300, 5 s in`. */
export function progressWords({ done, total, elapsedMs }: Tally): string {
  const count = `${done}/${total}`;
  if (done === 0 || elapsedMs <= 0) return `${count}, ${duration(elapsedMs)} in`;
  const perSecond = done / (elapsedMs / 1000);
  if (done >= total) return `${count}, ${rateWords(perSecond)}, ${duration(elapsedMs)} in all`;
  return `${count}, ${rateWords(perSecond)}, about ${duration(((total - done) / perSecond) * 1000)} left`;
}

const BAR_WIDTH = 20;

/**
 * One frame of the terminal's line: `\r`, erase the line, the bar, the words, the last name
 * finished; never wider than the terminal (a wrapped line cannot be redrawn in place).
 */
export function progressFrame(tally: Tally, lastName: string | undefined, columns: number): string {
  const { done, total } = tally;
  const filled = total > 0 ? Math.min(BAR_WIDTH, Math.floor((BAR_WIDTH * done) / total)) : BAR_WIDTH;
  // The last one done, the batch still checks types and writes its gradebook and report.
  const after = done >= total ? '; checking types, writing the gradebook' : lastName === undefined ? '' : `  ${oneLine(lastName)}`;
  const line = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${progressWords(tally)}${after}`;
  return `\r\x1b[K${truncate(line, Math.max(10, columns - 1))}`;
}

/** A log's line for a finished submission: its name and points, then where the batch stands. */
export function progressLogLine(result: SubmissionResult, tally: Tally): string {
  return `${doneLine(result)}  [${progressWords(tally)}]`;
}

export type ProgressMode = 'frame' | 'log';

/** A terminal redraws one line; anything else (a CI log, a file, a dumb terminal) gets lines it keeps. */
export function progressMode(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): ProgressMode {
  return stream.isTTY && env.TERM !== 'dumb' ? 'frame' : 'log';
}

export interface ProgressOutput {
  write(text: string): unknown;
  columns?: number;
}

/** The clock and the timer, handed in so that a test can drive them. */
export interface Ticking {
  now(): number;
  /** Calls `tick` every second until the returned function is called. */
  every(tick: () => void): () => void;
}

const REAL_TIME: Ticking = {
  now: () => Date.now(),
  every: (tick) => {
    const timer = setInterval(tick, 1000);
    // The line must never keep the process alive.
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** A batch's progress on `out`, from start(total) to stop(). */
export class BatchProgress {
  private startedAt = 0;
  private tally: Tally = { done: 0, total: 0, elapsedMs: 0 };
  private lastName: string | undefined;
  private stopTimer: (() => void) | undefined;

  constructor(private readonly out: ProgressOutput, private readonly mode: ProgressMode, private readonly time: Ticking = REAL_TIME) {}

  /** Grading begins: `total` to grade, `kept` results of an earlier run kept, `jobs` at a time. */
  start(total: number, kept: number, jobs: number): void {
    this.startedAt = this.time.now();
    this.tally = { done: 0, total, elapsedMs: 0 };
    if (total === 0) return;
    if (this.mode === 'log') {
      this.out.write(`grading ${total} submission${total === 1 ? '' : 's'}${kept ? ` (${kept} kept from an earlier run)` : ''}, ${Math.min(jobs, total)} at a time\n`);
      return;
    }
    this.draw();
    this.stopTimer = this.time.every(() => this.draw());
  }

  finished(result: SubmissionResult, done: number): void {
    this.tally = { ...this.tally, done, elapsedMs: this.time.now() - this.startedAt };
    this.lastName = truncate(oneLine(result.name), 40);
    if (this.mode === 'log') this.out.write(`${progressLogLine(result, this.tally)}\n`);
    else this.draw();
  }

  /** The end of the run: the timer stops and the terminal's line is erased. */
  stop(): void {
    if (!this.stopTimer) return;
    this.stopTimer();
    this.stopTimer = undefined;
    this.out.write('\r\x1b[K');
  }

  private draw(): void {
    // Once all are done the time stops: it is the batch's grading time.
    if (this.tally.done < this.tally.total) this.tally = { ...this.tally, elapsedMs: this.time.now() - this.startedAt };
    // A terminal that does not say its width (0) is taken as 80 columns.
    this.out.write(progressFrame(this.tally, this.lastName, this.out.columns || 80));
  }
}
