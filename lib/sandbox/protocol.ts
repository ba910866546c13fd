/**
 * Messages between the grader (parent) and the child process that runs student code. The child
 * gets a case's inputs and returns what the student's function returned; expected values never
 * cross this boundary, and nothing the child says is trusted until the parent has checked it.
 */
import type { CaseInputs } from '../grading/invoke';
import type { GradedFunction } from '../../tests/cases';

/** The submission, transpiled by the parent: module code by path, and how each import resolves. */
export interface LoadMessage {
  type: 'load';
  /** Path inside the submission folder → CommonJS code. */
  files: Record<string, string>;
  /** Path → import specifier → another path in `files`, or a harness module name in HARNESS_MODULES. */
  resolutions: Record<string, Record<string, string>>;
  entry: string;
  /** How the submission's files are named in stack traces, e.g. "student". */
  label: string;
  /** Characters of printed output kept per case; the rest is counted, not kept (set by the session). */
  outputCap: number;
}

export interface CaseMessage {
  type: 'case';
  id: number;
  fn: GradedFunction;
  inputs: CaseInputs;
}

export type ParentMessage = LoadMessage | CaseMessage;

/** An error from student code, described without trusting it (toString may throw, or lie). */
export interface ErrorInfo {
  name: string;
  message: string;
  stack: string;
  notImplemented: boolean;
}

export type ChildMessage =
  | { type: 'loaded' }
  | { type: 'load_failed'; error: ErrorInfo }
  | ({ type: 'result'; id: number; output: string } & ({ ok: true; value: unknown } | { ok: false; error: ErrorInfo }));

/** Import targets a submission may use besides its own files: the tensor module and its errors. */
export const HARNESS_MODULES = { tensor: 'lib/tensor', errors: 'lib/errors' } as const;
export type HarnessModule = keyof typeof HARNESS_MODULES;
