/**
 * process.exit called by student code running in this process (npm test, the self-tests' in-process
 * grading). In the grader it ends the child that runs the submission, and the case is a crash:
 * "the process running the submission died: it exited with code 3". Here it would end vitest's
 * worker, which vitest turns into an error of its own words ("process.exit unexpectedly called").
 * While a trap is set, process.exit records how the process would have ended and throws, so that
 * the call stops there; the caller reports a crash in the grader's words, even when the student's
 * code caught what was thrown and went on.
 */

/** What the trap throws to stop the code that called process.exit. */
class ExitCalled extends Error {
  override name = 'ExitCalled';
}

export interface ExitTrap {
  /** How the process would have ended ("exited with code 3"), once process.exit was called. */
  readonly exited: string | undefined;
  /** Puts process.exit back as it was. */
  release(): void;
}

/** Sets the trap until release(): process.exit records and throws instead of ending the process. */
export function trapExit(): ExitTrap {
  const original = process.exit;
  let exited: string | undefined;
  process.exit = ((code?: unknown) => {
    const before = process.exitCode;
    try {
      // Node's own check of the code: an invalid one throws here, as process.exit would throw it.
      if (code !== undefined && code !== null) process.exitCode = code as number;
      // What the system reports for the code Node exits with: its low byte.
      exited ??= `exited with code ${Number(process.exitCode ?? 0) & 0xff}`;
    } finally {
      process.exitCode = before;
    }
    throw new ExitCalled(exited);
  }) as typeof process.exit;
  return {
    get exited() {
      return exited;
    },
    release() {
      process.exit = original;
    },
  };
}
