/**
 * The checks on one graded case's output, part by part: each part against its expected values
 * (closeness within the case's tolerance, or exact for a mask or indices), then the case's
 * property checks on the rows its function's spec points at. What they find is the verdict's to
 * weigh (verdict.ts); they run in the grading process (or npm test's), never inside student code.
 */
import type { Dim, FunctionSpec, PartSpec } from '../assignment/functions';
import { partsOf, partsOfCall } from '../assignment/functions';
import { toleranceOf, type GradedCase } from '../assignment/cases';
import {
  checkClose,
  checkEqual,
  checkMaskEqual,
  checkMaskedAreZero,
  checkMaskedRowsZero,
  checkRowsSumToOne,
  checkShape,
  leadingColumns,
  type CheckOutcome,
  type Values,
  type Widening,
} from '../compare';

export interface Verdict {
  passed: boolean;
  checks: CheckOutcome[];
  /** The failing checks' messages, one per line; empty when passed. */
  message: string;
}

export interface Evidence {
  /**
   * The case's float32 error bound on a part, where it has one (lib/model/fixtures.ts
   * boundWidening): it widens that part's tolerance, element by element.
   */
  widening?: (part: string) => Widening | undefined;
  /** Each part's expected values, by part name. */
  expected: Readonly<Record<string, Values>>;
  inputs: Record<string, Values>;
  params: Readonly<Record<string, number>>;
}

function dimOf(dim: Dim, { inputs, params }: Evidence): number {
  if (typeof dim === 'number') return dim;
  if ('param' in dim) return params[dim.param];
  const shape = inputs[dim.input].shape;
  return shape[dim.dim < 0 ? shape.length + dim.dim : dim.dim];
}

function partChecks(graded: GradedCase, part: PartSpec, output: Values, expected: Values, evidence: Evidence): CheckOutcome[] {
  const shape = checkShape(output, expected);
  if (!shape.passed) return [shape];
  if (part.kind === 'float') return [checkClose(output, expected, toleranceOf(graded, part.name), evidence.widening?.(part.name))];
  return [part.kind === 'mask' ? checkMaskEqual(output, expected) : checkEqual(output, expected)];
}

/**
 * The case's property checks, on the rows the spec points at (FunctionSpec.rows); `masked_rows_zero`
 * on the rows of every float part the call returns.
 */
function propertyChecks(spec: FunctionSpec, graded: GradedCase, outputs: ReadonlyMap<string, Values>, evidence: Evidence): CheckOutcome[] {
  if (graded.checks.length === 0) return [];
  const rows = spec.rows;
  if (!rows) throw new Error(`${graded.name} declares property checks, but ${spec.export}'s spec says no rows to read`);
  const output = outputs.get(rows.part ?? partsOf(spec)[0].name);
  if (!output) throw new Error(`${graded.name} declares property checks on ${rows.part}, which the call leaves out`);
  const probs = rows.columns === undefined ? output : leadingColumns(output, dimOf(rows.columns, evidence));
  const mask = rows.mask === undefined ? undefined : evidence.inputs[rows.mask];
  return graded.checks.map((check) => {
    if (check === 'rows_sum_to_one') return checkRowsSumToOne(probs, mask);
    // A case with these checks always has a mask: the fixture generator refuses one without.
    if (check === 'masked_are_zero') return checkMaskedAreZero(probs, mask!);
    const floats = partsOfCall(spec, evidence.params).filter((p) => p.kind === 'float');
    const named = (part: string, c: CheckOutcome) => (spec.returns.tuple && !c.passed ? { ...c, message: `${part}: ${c.message}` } : c);
    const passed: CheckOutcome = { check, passed: true, message: '' };
    return floats.map((p) => named(p.name, checkMaskedRowsZero(outputs.get(p.name)!, mask!))).find((c) => !c.passed) ?? passed;
  });
}

/**
 * Every part checked against its expected values, then the property checks once every part has
 * the right shape. A tuple's failing checks name their part ("weights: …").
 */
export function evaluateCase(spec: FunctionSpec, graded: GradedCase, outputs: ReadonlyMap<string, Values>, evidence: Evidence): Verdict {
  const tuple = spec.returns.tuple;
  const checks: CheckOutcome[] = [];
  for (const part of partsOfCall(spec, evidence.params)) {
    const named = (c: CheckOutcome) => (tuple && !c.passed ? { ...c, message: `${part.name}: ${c.message}` } : c);
    checks.push(...partChecks(graded, part, outputs.get(part.name)!, evidence.expected[part.name], evidence).map(named));
  }
  if (checks.every((c) => c.check !== 'shape')) checks.push(...propertyChecks(spec, graded, outputs, evidence));
  const failed = checks.filter((c) => !c.passed);
  return { passed: failed.length === 0, checks, message: failed.map((c) => c.message).join('\n') };
}
