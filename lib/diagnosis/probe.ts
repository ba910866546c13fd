/**
 * What the diagnosis may do with a submission: call its own graded functions again on inputs it
 * derives from the failing case. Under vitest the call runs in-process, in an instance of the
 * submission of its own (adapters/index.ts); when grading, in an instance of its own in a contained
 * child, after every graded call (lib/grading/grade.ts), so a probe never changes points. Both hand back what lib/assignment/returns.ts reads from the return,
 * NaN kept: where a NaN appears is evidence.
 */
import type { Tolerance, Values } from '../compare';
import type { CaseInputs } from '../assignment/call';
import type { GradedCase } from '../assignment/cases';
import type { Tensor } from '../tensor';

/** An input the call changed in place, and the first flat index where it did (lib/model/inputsChanged.ts). */
export interface InputChange {
  name: string;
  at: number;
}

export type ProbeAnswer =
  /** `output`: the first (for most functions the only) part; `parts`: every part, by name. */
  | { kind: 'value'; output: Tensor; parts?: Readonly<Record<string, Tensor>>; changed?: readonly InputChange[] }
  /** It threw, or returned something that is not a tensor (the message says which). */
  | { kind: 'threw'; name: string; message: string; changed?: readonly InputChange[] }
  /** No evidence: it timed out, or the process died; `why` says which. */
  | { kind: 'none'; why: string };

export interface ProbeOptions {
  /**
   * Call the function even when the same call was asked before: a premise that calls twice needs
   * two answers (the grader's probe otherwise answers a repeated call from its first answer).
   */
  again?: boolean;
}

/**
 * Calls the submission's function on these inputs. The function gets copies: what it does to them
 * reaches neither the diagnosis's tensors nor a later call, and the answer says what it changed.
 */
export type Probe = (fn: string, inputs: CaseInputs, options?: ProbeOptions) => Promise<ProbeAnswer>;

/** A mistake the evidence shows: its id in catalogue.ts, and what the probes measured, if anything. */
export interface Finding {
  id: string;
  evidence?: string;
  /** Other mistakes that compute exactly the same on this case (named with '|'; the message is id's). */
  sameAs?: string[];
}

export interface ProbeContext {
  probe: Probe;
  /**
   * The names of the student's failing visible tests of function `fn`, for a diagnosis that asks
   * whether a function the failing one builds on fails its own tests; asked for only then.
   */
  failures(fn: string): Promise<readonly string[]>;
  /**
   * The graded calls made before `graded` in the instance that answered it, in the order they were
   * made (the grader's child for the case's phase, npm test's graded instance); with
   * `inFreshInstance`, how the diagnosis finds the earlier call that changes a later answer.
   */
  callsBefore?(graded: GradedCase): readonly EarlierCall[];
  /**
   * `calls` made one after another in a fresh instance of the submission (a new child, a new
   * import), no probe before them: the answer to the last. The instance is dropped after.
   */
  inFreshInstance?(calls: readonly ProbeCall[]): Promise<ProbeAnswer>;
}

/** A call the diagnosis makes: the function and its inputs. */
export interface ProbeCall {
  fn: string;
  inputs: CaseInputs;
}

/** A graded call made earlier in the same instance: its test, and its inputs, read when asked. */
export interface EarlierCall {
  name: string;
  fn: string;
  inputs(): CaseInputs;
}

/** The output of a probe, or undefined when it gave none. */
export async function probeOutput(context: ProbeContext, fn: string, inputs: CaseInputs): Promise<Tensor | undefined> {
  const answer = await context.probe(fn, inputs);
  return answer.kind === 'value' ? answer.output : undefined;
}

/** Two values the same to the bit (NaN where NaN): what a call that keeps nothing gives twice. */
export function firstDifference(a: Values, b: Values): number {
  if (!sameShape(a, b)) return 0;
  for (let i = 0; i < a.data.length; i++) {
    const [x, y] = [a.data[i], b.data[i]];
    if (x !== y && !(Number.isNaN(x) && Number.isNaN(y))) return i;
  }
  return -1;
}

/** Whether two answers are the same: the same values, or the same error. Undefined when either gave no evidence. */
export function sameAnswer(a: ProbeAnswer, b: ProbeAnswer): boolean | undefined {
  if (a.kind === 'none' || b.kind === 'none') return undefined;
  if (a.kind === 'value' && b.kind === 'value') return firstDifference(a.output, b.output) < 0;
  return a.kind === 'threw' && b.kind === 'threw' && a.name === b.name && a.message === b.message;
}

const sameShape = (a: Values, b: Values) => a.shape.length === b.shape.length && a.shape.every((n, i) => n === b.shape[i]);

/** Every value within atol + rtol·|target| of the target (lib/compare.ts's rule); NaN never is. */
export function withinTolerance(actual: Values | undefined, target: Values, tol: Tolerance): boolean {
  if (!actual || !sameShape(actual, target)) return false;
  for (let i = 0; i < target.data.length; i++) {
    if (!(Math.abs(actual.data[i] - target.data[i]) <= tol.atol + tol.rtol * Math.abs(target.data[i]))) return false;
  }
  return true;
}

// Plain loops: Array.prototype.every/some called on a typed array take the generic, slow path.
export function isAllZero({ data }: Values): boolean {
  for (let i = 0; i < data.length; i++) if (data[i] !== 0) return false;
  return true;
}

export function hasNaN({ data }: Values): boolean {
  for (let i = 0; i < data.length; i++) if (!Number.isFinite(data[i])) return true;
  return false;
}
