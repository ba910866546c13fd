/**
 * Messages between the grader (parent) and the child process that runs student code. The child
 * gets the specs of the functions it runs with the submission, then a case's inputs, and returns
 * what the student's function returned, each part already read as a tensor by the code npm test
 * uses (lib/assignment/returns.ts); expected values never cross this boundary, and nothing the
 * child says is used before lib/sandbox/validate.ts has checked it.
 */
import type { CaseInputs } from '../assignment/call';
import type { FunctionSpec } from '../assignment/functions';
import type { InputChange } from '../model/inputsChanged';

export type { InputChange };

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
  /** How each graded function is called and what it returns (set by the session): the child has no table of its own. */
  functions: FunctionSpec[];
}

export interface CaseMessage {
  type: 'case';
  id: number;
  /** The id of a function of the load message's `functions`. */
  fn: string;
  inputs: CaseInputs;
  /**
   * The output shape the contract promises for these inputs, per part (call.ts expectedShapes;
   * null where none is promised): derived from the inputs, so it tells a hidden case's child
   * nothing its inputs do not. A part of another, larger shape is sent as its shape alone
   * (WireShape), checked before its values cross.
   */
  expect: (number[] | null)[];
}

export type ParentMessage = (LoadMessage & { id: number }) | CaseMessage;

/** An error from student code, described without trusting it (toString may throw, or lie). */
export interface ErrorInfo {
  name: string;
  message: string;
  stack: string;
  notImplemented: boolean;
}

/** A returned tensor as the child sends it: row-major data of a shape (lib/assignment/returns.ts). */
export interface WireTensor {
  shape: number[];
  data: Float32Array | Float64Array | Uint8Array;
}

/** A returned value whose shape is not the promised one and holds more elements: its values are not sent. */
export interface WireShape {
  shape: number[];
}

export type WireValue = WireTensor | WireShape;

/** What a call returned: one value per part of its function's spec, in the spec's order, each named. */
export type WireReturn = Array<WireValue & { name: string }>;

export type ChildMessage =
  /** The runtime started, before any student code: a child that dies earlier is the grader's problem. */
  | { type: 'ready' }
  | { type: 'loaded'; id: number }
  | { type: 'load_failed'; id: number; error: ErrorInfo }
  /** `changed`: the inputs the call changed in place (a note, no points; a premise of the diagnosis). */
  | { type: 'result'; id: number; output: string; changed: InputChange[]; ok: true; value: WireReturn }
  /** `unreadable`: the function returned, but not tensors as its spec says (lib/assignment/returns.ts said why in error.message). */
  | { type: 'result'; id: number; output: string; changed: InputChange[]; ok: false; unreadable: boolean; error: ErrorInfo }
  /** The call being answered has printed a flood (lib/sandbox/printed.ts); sent once, before its answer. */
  | { type: 'flood'; id: number };

/** Import targets a submission may use besides its own files: the tensor module and its errors. */
export const HARNESS_MODULES = { tensor: 'lib/tensor', errors: 'lib/errors' } as const;
export type HarnessModule = keyof typeof HARNESS_MODULES;

/**
 * The specifiers that get the harness's module, exactly those vitest.config.mts aliases (a
 * self-test holds the two to each other): a relative path ending in lib/tensor or lib/errors.
 */
const HARNESS_IMPORT = /^(?:\.{1,2}\/)+(?:[\w.-]+\/)*lib\/(tensor|errors)(?:\.ts|\.js)?$/;

export function harnessModuleOf(specifier: string): HarnessModule | undefined {
  return HARNESS_IMPORT.exec(specifier)?.[1] as HarnessModule | undefined;
}
