/**
 * A graded case as the assignment declares it (its table, tests/cases.ts): what is called, for
 * how many points, on which fixture, compared how. The harness reads cases; it never writes one.
 */
import type { Tolerance } from '../compare';

/** A graded function's id (functions.ts FunctionSpec.id). */
export type GradedFunction = string;

/**
 * Named checks beyond closeness, on the rows the function's spec points at (FunctionSpec.rows), and
 * for `masked_rows_zero` on every float part: rows whose mask allows no key are exactly 0. Each
 * reports its own message.
 */
export type PropertyCheck = 'rows_sum_to_one' | 'masked_are_zero' | 'masked_rows_zero';

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
  checks: readonly PropertyCheck[];
  /** What the case checks, in a sentence a student reads when it fails. */
  what: string;
}

/** The tolerance a part is compared with. */
export function toleranceOf(graded: Pick<GradedCase, 'tolerance' | 'partTolerance'>, part: string): Tolerance {
  return graded.partTolerance?.[part] ?? graded.tolerance;
}

/** The visible cases (of one function), in the table's order. */
export function visibleOf(cases: readonly GradedCase[], fn?: GradedFunction): GradedCase[] {
  return cases.filter((c) => !c.hidden && (fn === undefined || c.fn === fn));
}
