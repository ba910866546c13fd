/**
 * The batch's last guard. Each child's bytes are handled under fail-closed code (session.ts), but a
 * batch grades many submissions in one process: an error that still escapes every handler (thrown
 * in an event listener, a promise nobody awaits) would end the process, and with it every
 * classmate's result, grades.csv and batch.json. While a batch runs, such an error is caught here
 * instead: every child is killed, the work in flight ends with the error (a grader failure row the
 * next run regrades), and the batch writes what it finished.
 */
import { killEveryChild } from '../sandbox/session';

export class LastGuard {
  /** The error that fired the guard, once one has. */
  failure?: Error;
  private readonly waiting = new Set<(err: Error) => void>();
  private readonly onError = (err: unknown) => this.fire(err);

  install(): this {
    process.on('uncaughtException', this.onError);
    process.on('unhandledRejection', this.onError);
    return this;
  }

  remove(): void {
    process.off('uncaughtException', this.onError);
    process.off('unhandledRejection', this.onError);
  }

  fire(err: unknown): void {
    if (this.failure) return;
    this.failure = err instanceof Error ? err : new Error(`a value thrown outside any handler: ${typeof err}`);
    killEveryChild();
    for (const stop of this.waiting) stop(this.failure);
    this.waiting.clear();
  }

  /** What `work` gives, or a rejection with the guard's error as soon as it fires. */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.waiting.add(reject);
      work.then(
        (value) => {
          this.waiting.delete(reject);
          resolve(value);
        },
        (err: unknown) => {
          this.waiting.delete(reject);
          reject(err);
        },
      );
    });
  }
}
