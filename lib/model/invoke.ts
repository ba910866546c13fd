/**
 * What both paths do around a call, shared by the vitest suite and the grader: the order the cases
 * run in, the copy of the inputs each call gets, and what the call changed of them. How a call is
 * made from a case is its function's spec (lib/assignment/call.ts).
 */
import type { CaseInputs } from '../assignment/call';
import type { GradedCase } from '../assignment/cases';
import { Tensor } from '../tensor';
import { firstChange } from './inputsChanged';
import type { InputChange } from './inputsChanged';

/**
 * The order both paths call the cases in: the table's. `npm test` runs its tests in it (one file,
 * one at a time; a `-t` filter keeps the order of what it selects), the grader its visible and then
 * its hidden cases; code that keeps state between calls meets the same sequence in both.
 */
export function runOrder<C extends GradedCase>(cases: readonly C[]): C[] {
  return [...cases];
}

/** A copy of a case's inputs for one call: whatever the call does to it, the case's own inputs stay as they were. */
export function copyInputs({ params, inputs }: CaseInputs): CaseInputs {
  return { params: { ...params }, inputs: Object.fromEntries(Object.entries(inputs).map(([name, t]) => [name, new Tensor(t.data.slice(), t.shape)])) };
}

/**
 * The inputs a call changed in place, each with the first flat index that changed (a new shape is
 * index 0): `given` is what it was handed, `pristine` a copy made before. What the call left in
 * `given` is student data: a getter that throws, or a replaced tensor, counts as changed at 0.
 */
export function changedInputs(pristine: CaseInputs, given: CaseInputs): InputChange[] {
  const changed: InputChange[] = [];
  for (const [name, t] of Object.entries(pristine.inputs)) {
    let at = 0;
    try {
      const after = given.inputs[name] as unknown as { shape: ArrayLike<number>; data: ArrayLike<number> };
      if (after instanceof Tensor && ArrayBuffer.isView(after.data)) at = firstChange(t, after);
    } catch {
      // a shape or data the call replaced with something that throws when read
    }
    if (at >= 0) changed.push({ name, at });
  }
  return changed;
}
