/**
 * What the diagnosis may do with a submission: call its own graded functions again on inputs it
 * derives from the failing case. Under vitest the call runs in-process, in an instance of the
 * submission of its own (adapters/index.ts); when grading it runs in a fresh contained child, after
 * every graded call (lib/grading/grade.ts), so a probe never changes points. Both hand back what adapters/normalise.ts reads from the return,
 * NaN kept: where a NaN appears is evidence.
 */
import type { Tolerance, Values } from '../compare';
import type { CaseInputs } from '../grading/invoke';
import type { Tensor } from '../tensor';
import type { GradedFunction } from '../../tests/cases';

export type ProbeAnswer =
  | { kind: 'value'; output: Tensor }
  /** It threw, or returned something that is not a tensor (the message says which). */
  | { kind: 'threw'; name: string; message: string }
  /** No evidence: it timed out, or the process died; `why` says which. */
  | { kind: 'none'; why: string };

export type Probe = (fn: GradedFunction, inputs: CaseInputs) => Promise<ProbeAnswer>;

export interface ProbeContext {
  probe: Probe;
  /**
   * The names of the student's failing scaledDotProductAttention tests, for a multi-head failure
   * (multiHeadSelfAttention usually calls it); asked for only when a multi-head case fails.
   */
  attentionFailures(): Promise<readonly string[]>;
}

/** The output of a probe, or undefined when it gave none. */
export async function probeOutput(context: ProbeContext, fn: GradedFunction, inputs: CaseInputs): Promise<Tensor | undefined> {
  const answer = await context.probe(fn, inputs);
  return answer.kind === 'value' ? answer.output : undefined;
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
