/**
 * An assignment, as its entry points hand it to the harness: its graded functions as data, its
 * table of cases, where its files are, and what it knows that the harness cannot (how to explain
 * a failure, what a non-finite output shows). The harness (lib/) reads this value and names no
 * function, case or mistake of its own; the attention assignment declares one in
 * tests/assignment.ts, and the self-tests declare a second one to prove the point.
 */
import path from 'node:path';
import type { CaseInputs } from '../assignment/call';
import type { GradedCase } from '../assignment/cases';
import type { FunctionSpec } from '../assignment/functions';
import type { NonFiniteHint } from '../assignment/returns';
import type { Values } from '../compare';
import type { Diagnoser } from '../diagnosis/explain';
import type { Probe } from '../diagnosis/probe';
import type { LoadedFixture } from '../model/fixtures';
import type { AttentionHeatmap } from '../model/result';
import type { PageWords } from '../report/submissionPage';
import type { SessionOutcome } from '../sandbox/session';
import type { Tensor } from '../tensor';

/**
 * Calls of the submission's functions after every verdict is in, each in a contained child that
 * saw no graded call (`kill()` starts the next call in a new one): what --carry-forward asks.
 */
export interface FreshCalls {
  call(fn: string, inputs: CaseInputs): Promise<SessionOutcome>;
  takeOutput(): string;
  kill(): void;
}

/** A group of an assignment's functions, graded or left out together (its parts' switch). */
export interface AssignmentPart {
  id: string;
  title: string;
  /** Its functions' ids. */
  functions: readonly string[];
}

/**
 * The parts an assignment is made of and which of them are graded: `functions` and `cases` hold
 * those of the parts on only. The handout ships the switch fixed (lib/release.ts), and the stubs and
 * fixtures of the parts on only; a batch records the parts it graded (lib/batch/provenance.ts).
 */
export interface AssignmentParts {
  declared: readonly AssignmentPart[];
  /** The ids of the parts graded, in `declared`'s order. */
  on: readonly string[];
  /** The file that holds the switch, relative to the assignment's folder. */
  switchFile: string;
  /** That file's text with the switch fixed to `on`, which nothing in a student's environment overrides: what a handout ships. */
  fixSwitch(text: string): string;
}

export interface Assignment {
  /** A short name for people (a bundle's title, a report's heading). */
  name: string;
  /** How a submission's page speaks of the assignment (its title, what its heatmaps show). */
  page: PageWords;
  /** The commands the handout's README opens with (a shell block: set-up, the student's loop, the grade). */
  studentCommands: readonly string[];
  /** The folder holding the assignment's own folders: student/, tests/, fixtures/ (and reference/ for instructors). */
  root: string;
  functions: readonly FunctionSpec[];
  /** The one table of graded cases, in the order both paths run them. */
  cases: readonly GradedCase[];
  /** Its parts, when it has optional ones; absent, every function and case is graded. */
  parts?: AssignmentParts;
  /**
   * What a non-finite value of a function's output shows, from the call's inputs ("this query's
   * keys are all masked"); undefined for none. Said where the verdict is made.
   */
  nonFiniteHint?(fn: string, inputs: Readonly<Record<string, Tensor>>): NonFiniteHint | undefined;
  /** What to do about a function that changes its inputs in place, in the assignment's words (lib/grading/hangWords.ts has a plain default). */
  inputsChangedFix?: string;
  /**
   * The assignment's diagnosis (lib/diagnosis/explain.ts), loaded when first asked for (lazy.ts):
   * a passing npm test never loads it. Without one, a failure gets what its output shows, and no
   * cause.
   */
  diagnosis?: () => Promise<Diagnoser>;
  /**
   * --carry-forward, an instructor's choice: whether a failed case's `output` is right given the
   * student's own other functions (error carried forward), asked through `calls`; the reason the
   * case passes with when it is, else undefined. Without one, the flag carries nothing.
   */
  carryForward?(calls: FreshCalls, graded: GradedCase, fixture: LoadedFixture, output: Values): Promise<string | undefined>;
  /**
   * The picture a submission's page draws of a case that failed or erred (a heatmap of the
   * probabilities behind an attention output), probed after grading; undefined for a case it has
   * none of. `instructorView`: a hidden case may show its expected values.
   */
  heatmap?(probe: Probe, graded: GradedCase, fixture: LoadedFixture, instructorView: boolean): Promise<AttentionHeatmap | undefined>;
}

/** The folder of the assignment's fixtures. */
export const fixturesDir = (assignment: Pick<Assignment, 'root'>): string => path.join(assignment.root, 'fixtures');
