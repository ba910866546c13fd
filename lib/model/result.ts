/**
 * The result model of a graded submission. It knows nothing about Gradescope, CSV or terminals:
 * lib/report/ turns it into each of those.
 */
import type { GradedFunction } from '../assignment/cases';
import type { ContainmentReport } from './containmentReport';
import type { LateOutcome } from '../late/policy';

/** What the HTML report draws for a failed attention case: one batch entry's probabilities. */
export interface AttentionHeatmap {
  /** The batch entry shown (the first with a NaN, else the furthest from expected), e.g. [0, 1] for Q [2, 2, 12, 64]. */
  batchIndex: number[];
  /** The case is hidden: its expected probabilities are present only on an instructor's page. */
  hidden: boolean;
  /** The expected probabilities softmax(Q Kᵀ/√d_k) with the mask, from the fixture. */
  expected?: Matrix;
  /** What the submission's function gave with V = identity; absent when the probe gave nothing usable. */
  actual?: Matrix;
  /** 1 where the query may attend the key; absent when the case has no mask. */
  allowed?: Matrix;
  /** Why there is no `actual`, in a sentence. */
  problem?: string;
}

/**
 * passed: the parent verified the output. failed: an output came and a check refused it.
 * not_implemented: the stub still throws. error: the function threw, or returned something
 * unreadable. timeout: killed after the per-test limit. crashed: the process died (exit, signal),
 * or the function reached the memory cap (the process died of it, or an allocation failed).
 * refused: the submission imports something it may not, so it was not run.
 */
export type CaseStatus = 'passed' | 'failed' | 'not_implemented' | 'error' | 'timeout' | 'crashed' | 'refused';

export interface CaseResult {
  name: string;
  fn: GradedFunction;
  hidden: boolean;
  points: number;
  maxPoints: number;
  status: CaseStatus;
  /** One line a student can act on; empty when passed. Leads with the diagnosis when there is one. */
  reason: string;
  /** The known mistake this failure matches (lib/diagnosis/catalogue.ts), when one does. */
  diagnosis?: { mistake: string; message: string };
  /** Its points came by --carry-forward: right given the student's own attention (the reason says so). */
  carried?: boolean;
  /** Longer detail (all failing checks, the student's stack trace); may be empty. */
  details: string;
  /** What the submission printed during this case, capped. */
  output: string;
  durationMs: number;
}

export interface SubmissionResult {
  /** The submission's name: its folder's name (batch) or the folder as given. */
  name: string;
  score: number;
  maxScore: number;
  /** graded: every case has a verdict. error: the submission could not be run at all (reason in feedback). */
  status: 'graded' | 'error';
  /** Notes about the whole submission: type errors, a missing index.ts, what was refused. */
  feedback: string[];
  cases: CaseResult[];
  executionTimeMs: number;
  /**
   * Attention probabilities of each failed attention case, by case name, for the HTML report;
   * only when GradeOptions.heatmaps asked for them. Kept in memory: no serializer writes them.
   */
  heatmaps?: ReadonlyMap<string, AttentionHeatmap>;
  /** The containment its code ran under (absent when none of it ran). */
  containment?: ContainmentReport;
  /** What a late policy took (lib/late/policy.ts); `score` is then what is left, `late.before` the points the tests earned. */
  late?: LateOutcome;
  /** The ids of the assignment's parts graded, when it has optional ones (lib/grading/assignment.ts AssignmentParts). */
  parts?: string[];
}

export function totals(cases: readonly CaseResult[]): { score: number; maxScore: number } {
  // Points are quarters and halves: round away float noise from summing them.
  const round = (x: number) => Math.round(x * 1e6) / 1e6;
  return {
    score: round(cases.reduce((sum, c) => sum + c.points, 0)),
    maxScore: round(cases.reduce((sum, c) => sum + c.maxPoints, 0)),
  };
}

/** A row-major [rows, cols] matrix of float64 values (NaN allowed: it is drawn in its own colour). */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float64Array;
}
