/**
 * Where a case's points are decided, in both paths: the verdict on one case from what its call
 * produced (an answer, an error, a timeout, a crash), the status and the one-line reason a student
 * acts on, what the diagnosis should look at, and the points that status earns (caseResult). An
 * answer is read part by part (lib/assignment/returns.ts) and compared (checks.ts). The diagnosis
 * comes later (explain.ts): it probes the submission, so the grader asks for it once every verdict
 * is in. Runs in the grading process (or npm test's), never inside student code.
 */
import type { Assignment } from './assignment';
import type { GradedCase } from '../assignment/cases';
import { partsOfCall, specOf, type FunctionSpec } from '../assignment/functions';
import { checkPart } from '../assignment/returns';
import type { Values } from '../compare';
import { NonFiniteResult, ResultError } from '../errors';
import type { Tensor } from '../tensor';
import { evaluateCase } from './checks';
import type { Diagnosis, Explanation, Outcome } from '../diagnosis/explain';
import type { ErrorInfo } from '../sandbox/protocol';
import type { SessionOutcome } from '../sandbox/session';
import { mapStack } from '../sandbox/sourceMap';
import type { PreparedSubmission } from '../sandbox/transpile';
import { didNotLoad, diedWords, didNotReturn, memoryWords, thrownWords } from './hangWords';
import { faultOf, FAULT_STATUS, type FunctionLedger } from './faults';
import { DIED_AT_CAP } from '../sandbox/outOfMemory';
import { firstFramePlace } from '../text/place';
import { failedToLoad } from '../sandbox/loadCheck';
import { boundWidening, type LoadedFixture } from '../model/fixtures';
import { firstToSay, notRunAfterLoad } from '../model/notRun';
import { totals, type CaseResult, type CaseStatus, type SubmissionResult } from '../model/result';

/**
 * A stack trace as a student should see it: the message, then only the frames in the submission's
 * own files (named `<label>/file:line:col` in the child), at the lines they wrote. The harness's
 * frames (the tensor module, the adapters, the child's runtime) and machine paths are not theirs.
 */
export function studentStack(error: ErrorInfo, prepared: PreparedSubmission): string {
  const lines = error.stack.split('\n');
  const firstFrame = lines.findIndex((line) => /^\s+at /.test(line));
  const message = firstFrame < 0 ? lines : lines.slice(0, firstFrame);
  const own = new RegExp(`^\\s+at (?:.* \\()?${prepared.load.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[^\\s():]+:\\d+:\\d+\\)?$`);
  const frames = firstFrame < 0 ? [] : lines.slice(firstFrame).filter((line) => own.test(line));
  return mapStack([...message, ...frames].join('\n'), prepared.load.label, prepared.lineMaps);
}

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
  // A bound is written beside the expected values: bound.npy for one tensor, bound_<part>.npy for a tuple's part.
  const widening = (part: string) => boundWidening(fixture, spec.returns.tuple ? part : undefined);
  const evidence = { expected: expectedParts(spec, fixture), inputs: fixture.inputs, params: fixture.params, widening };
  const byName = new Map(returned.map((p) => [p.name, p.value]));
  const parts = partsOfCall(spec, fixture.params);
  const shapeOnly = parts.find((part) => byName.get(part.name)?.data === undefined);
  if (shapeOnly) {
    // The shape check comes first and alone reads no values (checks.ts): the same words as for any wrong shape.
    const outputs = new Map(parts.map((p) => [p.name, { shape: byName.get(p.name)?.shape ?? [], data: [] } as Values]));
    const [first, ...rest] = evaluateCase(spec, graded, outputs, evidence).message.split('\n');
    return { status: 'failed', reason: first, details: rest.join('\n') };
  }
  const outputs = new Map<string, Tensor>();
  try {
    for (const part of parts) outputs.set(part.name, checkPart(spec, part, byName.get(part.name), assignment.nonFiniteHint?.(graded.fn, fixture.inputs)));
  } catch (err) {
    if (!(err instanceof ResultError)) throw err;
    if (err instanceof NonFiniteResult) return { ...unreadable(err.message), status: 'failed' };
    return unreadable(err.message);
  }
  const verdict = evaluateCase(spec, graded, outputs, evidence);
  if (verdict.passed) return { status: 'passed', reason: '', details: '' };
  const [first, ...rest] = verdict.message.split('\n');
  // The diagnosis reads one output: a single tensor's, or the first failing part of a tuple.
  const failing = parts.find((p) => verdict.checks.some((c) => !c.passed && (!spec.returns.tuple || c.message.startsWith(`${p.name}: `)))) ?? parts[0];
  const outcome: Outcome = { kind: 'output', output: outputs.get(failing.name)!, ...(spec.returns.tuple && { part: failing.name }), ...(failing.kind !== 'float' && { exact: true as const }) };
  return { status: 'failed', reason: first, details: rest.join('\n'), evidence: outcome };
}

export interface CaseVerdict {
  status: CaseStatus;
  reason: string;
  details: string;
  diagnosis?: Diagnosis;
  /** What a failure produced, for the diagnosis; absent when there is nothing to diagnose (passed, timeout, crash, stub). */
  evidence?: Outcome;
  /** Passed by --carry-forward (carryForward.ts): right given the student's own attention. */
  carried?: true;
}

/** A recognised mistake leads the reason, the line every report shows; otherwise what the diagnosis says joins the details. */
export function withExplanation(verdict: CaseVerdict, { diagnosis, note }: Explanation): CaseVerdict {
  if (diagnosis) return { ...verdict, reason: `${diagnosis.message} — ${verdict.reason}`, diagnosis };
  return note ? { ...verdict, details: [verdict.details, note].filter(Boolean).join('\n') } : verdict;
}

/**
 * What a verdict is made with: the assignment (its functions, how to read their returns), and the
 * limits the reasons name (the per-test limit, each function's share of the budget, the memory cap).
 */
export interface Limits {
  assignment: Pick<Assignment, 'functions' | 'nonFiniteHint'>;
  timeoutMs: number;
  ledger: FunctionLedger;
  memoryBytes: number;
}

function timedOut(outcome: SessionOutcome & { kind: 'timeout' }, graded: GradedCase, { assignment, timeoutMs, ledger }: Limits): CaseVerdict {
  if (!outcome.budget && outcome.duringLoad) {
    return { status: 'timeout', reason: didNotLoad(timeoutMs), details: '' };
  }
  if (!outcome.budget) return { status: 'timeout', reason: didNotReturn(specOf(assignment.functions, graded.fn).export, timeoutMs, outcome.flooded), details: '' };
  return { status: 'timeout', reason: ledger.spentWords(graded.fn, true), details: '' };
}

/** A test of a function that cannot run (it faulted, or its share of the budget is spent): it fails at once, without a call. */
export function blockedVerdict({ reason, status }: { reason: string; status: CaseStatus }): CaseVerdict {
  return { status, reason, details: '' };
}

/**
 * A call that reached the memory cap, in the words npm test says too (tests/graded.test.ts), with
 * the status of every test the fault costs (faults.ts): the place the student's stack shows, or how
 * the process that died of it ended.
 */
function overMemory(outcome: SessionOutcome, exported: string, capBytes: number, stackOf: StackOf): CaseVerdict {
  const status = FAULT_STATUS.memory;
  if (outcome.kind === 'crashed') return { status, reason: memoryWords(exported, capBytes), details: `the process running it ${outcome.how.slice(0, -DIED_AT_CAP.length)}` };
  const details = outcome.kind === 'threw' ? stackOf(outcome.error) : '';
  return { status, reason: memoryWords(exported, capBytes, firstFramePlace(details)), details };
}

/** A thrown error's stack as the student reads it (studentStack for the grader's child; npm test's own frames in process). */
export type StackOf = (error: ErrorInfo) => string;

export function fromOutcome(outcome: SessionOutcome, graded: GradedCase, fixture: LoadedFixture, limits: Limits, stackOf: StackOf): CaseVerdict {
  const during = outcome.duringLoad ? ' while loading the submission' : '';
  if (faultOf(outcome, limits.timeoutMs, limits.memoryBytes)?.kind === 'memory') {
    return overMemory(outcome, specOf(limits.assignment.functions, graded.fn).export, limits.memoryBytes, stackOf);
  }
  switch (outcome.kind) {
    case 'timeout':
      return timedOut(outcome, graded, limits);
    case 'refused':
      // The grader's own words: what the child did is known, so no guess at a cause.
      return { status: 'error', reason: `the grader refused what the process running the submission sent${during} and stopped it: it ${outcome.how}`, details: '' };
    case 'crashed':
      // Not a fault while it loads (every test fails with it anyway): the cap is named all the same.
      if (outcome.duringLoad && outcome.how.endsWith(DIED_AT_CAP)) return { status: 'crashed', reason: failedToLoad(memoryWords(undefined, limits.memoryBytes)), details: '' };
      return { status: 'crashed', reason: diedWords(outcome.how, Boolean(outcome.duringLoad)), details: '' };
    case 'load_failed':
    case 'threw': {
      const { error } = outcome;
      if (outcome.kind === 'threw' && outcome.unreadable) return unreadable(error.message);
      const details = stackOf(error);
      const reason = thrownWords(error, outcome.kind === 'load_failed', limits.memoryBytes, firstFramePlace(details));
      if (error.notImplemented) return { status: 'not_implemented', reason, details };
      const verdict: CaseVerdict = { status: 'error', reason, details };
      if (outcome.kind === 'load_failed' || outcome.duringLoad) return verdict;
      return { ...verdict, evidence: { kind: 'threw', name: error.name, message: error.message } };
    }
    case 'value':
      return judgeValue(limits.assignment, graded, outcome.value, fixture);
  }
}

export function caseResult(graded: GradedCase, verdict: CaseVerdict, output = '', durationMs = 0): CaseResult {
  const { status, reason, details, diagnosis, carried } = verdict;
  return {
    name: graded.name, fn: graded.fn, hidden: graded.hidden, maxPoints: graded.points,
    points: status === 'passed' ? graded.points : 0, status, reason, ...(diagnosis && { diagnosis }), ...(carried && { carried }), details, output, durationMs,
  };
}

/**
 * A result for a submission whose code did not run: every case gets the same status, and the reason
 * is said once, by the first (lib/model/notRun.ts). `graded` when that is the submission's own doing
 * (a refused import, a syntax error: 0 points); `error` when there was nothing to run (no index.ts)
 * or the grader failed.
 */
export function withoutRunning(
  name: string, cases: readonly GradedCase[], status: CaseStatus, reason: string, feedback: string[], submission: SubmissionResult['status'] = status === 'refused' ? 'graded' : 'error',
): SubmissionResult {
  const first = firstToSay(cases);
  const results = cases.map((c) => caseResult(c, { status, reason: c === first ? reason : notRunAfterLoad(first!.name), details: '' }));
  return { name, status: submission, feedback, cases: results, executionTimeMs: 0, ...totals(results) };
}

