/**
 * Which classes of the domain (domain.ts) the case table reaches, and which none does. A call
 * repeats when an earlier call of the same function in the same child (the visible cases share one
 * child, the hidden ones another) had inputs of the same shapes and dtypes and an expected output
 * the later answer would fail: code that keeps state between calls (a cache keyed by shape) then
 * answers the second with the first one's result, and loses its points. A function's cases run in
 * the table's order in both paths.
 */
import type { Tolerance } from '../../lib/compare';
import type { Tensor } from '../../lib/tensor';
import type { GradedCase } from '../../lib/assignment/cases';
import type { CaseData } from '../../reference/fixtures/caseBuild';
import { classesOf } from './classify';
import { classId, DOMAIN, type DomainClass } from './domain';

/** What coverage reads of a case: its inputs and its expected output. */
export interface CaseValues extends CaseData {
  expected: Tensor;
}

const signature = (data: CaseData) =>
  Object.keys(data.inputs).sort().map((name) => `${name}:${data.inputs[name].dtype}[${data.inputs[name].shape.join(',')}]`).join(' ');

/** Whether an answer to `a` would pass for `b`: a stale answer then costs nothing, and the repeat shows no state. */
function passesFor(a: Tensor, b: Tensor, { atol, rtol }: Tolerance): boolean {
  if (a.shape.join() !== b.shape.join()) return false;
  for (let i = 0; i < a.data.length; i++) if (!(Math.abs(a.data[i] - b.data[i]) <= atol + rtol * Math.abs(b.data[i]))) return false;
  return true;
}

/** Each case's name → the classes it reaches, repeats included. */
export function reach(cases: readonly GradedCase[], valuesOf: (graded: GradedCase) => CaseValues): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const earlier = new Map<string, CaseValues[]>();
  for (const graded of cases) {
    const values = valuesOf(graded);
    const child = `${graded.hidden ? 'hidden' : 'visible'} ${graded.fn} ${signature(values)}`;
    const before = earlier.get(child) ?? [];
    const classes = classesOf(graded.fn, values);
    if (before.some((e) => !passesFor(e.expected, values.expected, graded.tolerance))) classes.push(classId(graded.fn, 'repeated'));
    reached.set(graded.name, classes);
    earlier.set(child, [...before, values]);
  }
  return reached;
}

/** The classes no case reaches. */
export function unreached(reached: ReadonlyMap<string, readonly string[]>): DomainClass[] {
  const all = new Set([...reached.values()].flat());
  return DOMAIN.filter((c) => !all.has(c.id));
}
