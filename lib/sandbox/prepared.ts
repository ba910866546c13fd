/**
 * What the transpiling process (transpile.ts) hands the grader for a submission, and the check of
 * a cached one. Apart from transpile.ts so that the grading process, which only reads these, does
 * not load TypeScript (about a second of CPU in every process that grades).
 */
import type { LoadMessage } from './protocol';
import type { LineMap } from './sourceMap';

export interface TranspileJob {
  /** Code files by posix path relative to the submission folder. */
  files: Record<string, string>;
  entry: string;
  label: string;
}

export interface PreparedSubmission {
  /** The load message but for the functions' specs, which the session adds (the same code grades under any assignment). */
  load: Omit<LoadMessage, 'functions'>;
  /** Imports that are not allowed, one sentence each; when non-empty the submission is not run. */
  refused: string[];
  /** Why it cannot load (a syntax error, an import of a file that is not there); when non-empty it is not run. */
  loadErrors: string[];
  /** Per file, from transpiled positions back to the source's (for stack traces). */
  lineMaps: Record<string, LineMap>;
  /** For the student: files of theirs that the grader does not use. */
  notes: string[];
}

/** A PreparedSubmission as JSON gives it back (a cache's entry, lib/workCache.ts). */
export function isPrepared(value: unknown): value is PreparedSubmission {
  const v = value as Partial<PreparedSubmission> | null;
  const record = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);
  const strings = (x: unknown) => Array.isArray(x) && x.every((s) => typeof s === 'string');
  return record(v) && record(v!.load) && v!.load!.type === 'load' && record(v!.load!.files) && record(v!.load!.resolutions)
    && Object.values(v!.load!.files).every((f) => typeof f === 'string') && typeof v!.load!.entry === 'string'
    && record(v!.lineMaps) && strings(v!.refused) && strings(v!.loadErrors) && strings(v!.notes);
}
