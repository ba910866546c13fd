/**
 * Typed errors: callers branch on them (a stub is "not attempted", a malformed result is the
 * student's, a FixtureError or GraderError is the harness's own failure).
 */

/** Thrown by a stub: the function has not been attempted yet. */
export class NotImplementedError extends Error {
  override name = 'NotImplementedError';
  constructor(functionName: string, file = 'student/index.ts') {
    super(`${functionName} is not implemented yet: edit ${file}`);
  }
}

/** Shapes that an operation cannot accept; the message names the op, the argument and the shapes. */
export class ShapeError extends Error {
  override name = 'ShapeError';
}

/** A fixture file or the manifest is missing, corrupt or does not match; the message names the file. */
export class FixtureError extends Error {
  override name = 'FixtureError';
}

/** What a graded function returned cannot be read as a tensor (wrong type, shape, length, NaN). */
export class ResultError extends Error {
  override name = 'ResultError';
}

/**
 * A tensor that holds NaN or ±Infinity: read, but a wrong answer. The grader counts it a failed
 * check (the function returned), not an error; the student sees the same message either way.
 */
export class NonFiniteResult extends ResultError {}

/** The harness itself could not grade. */
export class GraderError extends Error {
  override name = 'GraderError';
}
