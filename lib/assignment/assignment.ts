/**
 * An assignment, as its entry points hand it to the harness: its graded functions as data, its
 * table of cases, where its files are, and what it knows that the harness cannot (how to explain
 * a failure, what a non-finite output shows). The harness (lib/) reads this value and names no
 * function, case or mistake of its own; the attention assignment declares one in
 * tests/assignment.ts, and the self-tests declare a second one to prove the point.
 */
import path from 'node:path';
import type { GradedCase } from './cases';
import type { FunctionSpec } from './functions';
import type { NonFiniteHint } from './returns';
import type { Tensor } from '../tensor';

export interface Assignment {
  /** A short name for people (a bundle's title, a report's heading). */
  name: string;
  /** The folder holding the assignment's own folders: student/, tests/, fixtures/ (and reference/ for instructors). */
  root: string;
  functions: readonly FunctionSpec[];
  /** The one table of graded cases, in the order both paths run them. */
  cases: readonly GradedCase[];
  /**
   * What a non-finite value of a function's output shows, from the call's inputs ("this query's
   * keys are all masked"); undefined for none. Said where the verdict is made.
   */
  nonFiniteHint?(fn: string, inputs: Readonly<Record<string, Tensor>>): NonFiniteHint | undefined;
  /** What to do about a function that changes its inputs in place, in the assignment's words (lib/grading/hangWords.ts has a plain default). */
  inputsChangedFix?: string;
}

/** The folder of the assignment's fixtures. */
export const fixturesDir = (assignment: Pick<Assignment, 'root'>): string => path.join(assignment.root, 'fixtures');
