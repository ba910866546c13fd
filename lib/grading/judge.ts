/**
 * The verdict on what a call returned, the same in both paths: the grader judges the parts its
 * child sent (verdict.ts), `npm test` the parts its own call returned. Each part is read again and
 * its values checked for its kind (lib/assignment/returns.ts), then compared (evaluate.ts).
 */
import type { Assignment } from './assignment';
import type { GradedCase } from '../assignment/cases';
import { partsOf, specOf, type FunctionSpec } from '../assignment/functions';
import { checkPart } from '../assignment/returns';
import type { Values } from '../compare';
import type { Outcome } from '../diagnosis/explain';
import { NonFiniteResult, ResultError } from '../errors';
import type { LoadedFixture } from '../model/fixtures';
import type { Tensor } from '../tensor';
import { evaluateCase } from './evaluate';
import type { CaseVerdict } from './verdict';

/** What the function returned is not a tensor, or not a finite one: lib/assignment/returns.ts said why, in the child or here. */
export function unreadable(message: string): CaseVerdict {
  return { status: 'error', reason: message, details: '', evidence: { kind: 'unreadable', name: 'ResultError', message } };
}

/** A returned part: its values, or (judged by its shape alone) its shape. */
export interface ReturnedPart {
  name: string;
  value: { shape: readonly number[]; data?: unknown };
}

/** Each part's expected values, by part name: expected.npy for one, expected_<part>.npy for a tuple's. */
export function expectedParts(spec: FunctionSpec, fixture: LoadedFixture): Record<string, Tensor> {
  return spec.returns.tuple ? fixture.parts : { [spec.returns.part.name]: fixture.expected };
}

/** Its values checked, or, when a part's shape alone was read (returns.ts judgedByShape), that shape. */
export function judgeValue(assignment: Pick<Assignment, 'functions' | 'nonFiniteHint'>, graded: GradedCase, returned: readonly ReturnedPart[], fixture: LoadedFixture): CaseVerdict {
  const spec = specOf(assignment.functions, graded.fn);
  const evidence = { expected: expectedParts(spec, fixture), inputs: fixture.inputs, params: fixture.params };
  const byName = new Map(returned.map((p) => [p.name, p.value]));
  const shapeOnly = partsOf(spec).find((part) => byName.get(part.name)?.data === undefined);
  if (shapeOnly) {
    // The shape check comes first and alone reads no values (evaluate.ts): the same words as for any wrong shape.
    const outputs = new Map(partsOf(spec).map((p) => [p.name, { shape: byName.get(p.name)?.shape ?? [], data: [] } as Values]));
    const [first, ...rest] = evaluateCase(spec, graded, outputs, evidence).message.split('\n');
    return { status: 'failed', reason: first, details: rest.join('\n') };
  }
  const outputs = new Map<string, Tensor>();
  try {
    for (const part of partsOf(spec)) outputs.set(part.name, checkPart(spec, part, byName.get(part.name), assignment.nonFiniteHint?.(graded.fn, fixture.inputs)));
  } catch (err) {
    if (!(err instanceof ResultError)) throw err;
    if (err instanceof NonFiniteResult) return { ...unreadable(err.message), status: 'failed' };
    return unreadable(err.message);
  }
  const verdict = evaluateCase(spec, graded, outputs, evidence);
  if (verdict.passed) return { status: 'passed', reason: '', details: '' };
  const [first, ...rest] = verdict.message.split('\n');
  // The diagnosis reads one output: a single tensor's, or the first failing part of a tuple.
  const failing = partsOf(spec).find((p) => verdict.checks.some((c) => !c.passed && (!spec.returns.tuple || c.message.startsWith(`${p.name}: `)))) ?? partsOf(spec)[0];
  const outcome: Outcome = { kind: 'output', output: outputs.get(failing.name)!, ...(spec.returns.tuple && { part: failing.name }), ...(failing.kind !== 'float' && { exact: true as const }) };
  return { status: 'failed', reason: first, details: rest.join('\n'), evidence: outcome };
}
