/**
 * The self-tests' way to call an implementation (a catalogue submission, the reference, the
 * oracle) on a case's inputs, through the assignment's function specs as both paths call it: the
 * export the spec names, its own copy of the inputs, the return read and its values checked as the
 * verdict reads them (a NaN throws NonFiniteResult, a wrong type ResultError), under a time limit.
 */
import { callExport, invoke, type CaseInputs } from '../lib/assignment/call';
import { specOf } from '../lib/assignment/functions';
import { checkPart, notExported, readReturn } from '../lib/assignment/returns';
import { PER_TEST_LIMIT_MS } from '../lib/grading/hangWords';
import { withinLimit } from '../lib/grading/withinLimit';
import { copyInputs } from '../lib/model/invoke';
import type { Tensor } from '../lib/tensor';
import { ALL_FUNCTIONS } from '../adapters/functions';
import { ASSIGNMENT } from '../tests/assignment';

/** What an implementation's functions return: one tensor per call (every function of this assignment returns one). */
export type Call = (fn: string, inputs: CaseInputs) => Tensor;

/** Calls `impl`'s graded functions as the suite does; `file` names it in messages. */
export function caller(impl: object, file = 'student/index.ts', limitMs = PER_TEST_LIMIT_MS): Call {
  return (fn, inputs) => {
    const spec = specOf(ASSIGNMENT.functions, fn);
    return withinLimit(spec.export, () => {
      const member = (impl as Record<string, unknown>)[spec.export];
      if (typeof member !== 'function') throw notExported(file, spec.export);
      const [read] = readReturn(spec, invoke(spec, member as (...args: unknown[]) => unknown, copyInputs(inputs), impl));
      return checkPart(spec, spec.returns.tuple ? spec.returns.parts[0] : spec.returns.part, read.value, ASSIGNMENT.nonFiniteHint?.(fn, inputs.inputs));
    }, limitMs);
  };
}

/** What an implementation that needs no checking (the reference, the oracle) answers: its export called as the spec says, for a function of any part. */
export function answerOf<T>(impl: object, fn: string, inputs: CaseInputs): T {
  return callExport(specOf(ALL_FUNCTIONS, fn), impl, inputs) as T;
}
