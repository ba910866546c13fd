/**
 * A graded case as the assignment declares it (its table, tests/cases.ts): what is called, for
 * how many points, on which fixture, compared how. The harness reads cases; it never writes one.
 */
import type { Tolerance, Values, Widening } from '../compare';

/** A graded function's id (functions.ts FunctionSpec.id). */
export type GradedFunction = string;

/**
 * How far a correct float32 computation may land from the expected values on a case's own inputs,
 * element by element (the assignment derives it). Where it is wider than the tolerance it widens
 * it, never narrows it, and a failure beyond it names it. Computed in float64, in the process that
 * awards points, from the inputs alone: the same bound in every path.
 */
export interface ErrorBound {
  /** What a failure beyond it calls it: "beyond the <name> of this case". */
  name: string;
  /** Each element's bound on a part (row-major, as its expected values). */
  of(inputs: Readonly<Record<string, Values>>, params: Readonly<Record<string, number>>, part: string): ArrayLike<number>;
}

/** Named checks beyond closeness, on the rows the function's spec points at (FunctionSpec.rows); each reports its own message. */
export type PropertyCheck = 'rows_sum_to_one' | 'masked_are_zero';

export interface GradedCase {
  /** Test name shown to students and used with `-t`. */
  name: string;
  fn: GradedFunction;
  points: number;
  /** Folder under fixtures/ holding the inputs and the expected output (see fixtures/manifest.json). */
  fixture: string;
  hidden: boolean;
  /** How close each value must be; for a tuple return, every part's unless `partTolerance` names it. */
  tolerance: Tolerance;
  /** A tuple return's parts compared with a tolerance of their own, by part name. */
  partTolerance?: Readonly<Record<string, Tolerance>>;
  /** Widens the tolerance element by element where a correct float32 computation may err by more. */
  bound?: ErrorBound;
  checks: readonly PropertyCheck[];
  /** What the case checks, in a sentence a student reads when it fails. */
  what: string;
}

/**
 * The case's error bound on a part, from the case's own inputs, computed only if asked: the check
 * (lib/grading/checks.ts) and the note on a failure (lib/diagnosis/explain.ts summarise) read one rule.
 */
export function wideningOf(
  graded: Pick<GradedCase, 'bound'>, part: string, inputs: Readonly<Record<string, Values>>, params: Readonly<Record<string, number>>,
): Widening | undefined {
  const bound = graded.bound;
  return bound && { name: bound.name, bounds: () => bound.of(inputs, params, part) };
}

/** The tolerance a part is compared with. */
export function toleranceOf(graded: Pick<GradedCase, 'tolerance' | 'partTolerance'>, part: string): Tolerance {
  return graded.partTolerance?.[part] ?? graded.tolerance;
}

/** The visible cases (of one function), in the table's order. */
export function visibleOf(cases: readonly GradedCase[], fn?: GradedFunction): GradedCase[] {
  return cases.filter((c) => !c.hidden && (fn === undefined || c.fn === fn));
}
