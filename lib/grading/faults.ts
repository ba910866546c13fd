/**
 * One function's faults never cost another function's tests, in either path. Each graded function
 * has an equal share of the submission's time budget for all its tests (and then the diagnosis of
 * its failures), charged only with its own calls; and once a function has hung, died at the memory
 * cap or flooded the grader's output, its other tests fail at once instead of each paying for the
 * same fault again. Both charge a call the CPU time it spent (childClock.ts: the grader its child's,
 * `npm test` its own thread's), so a slow, correct function fits its share on a loaded machine as
 * it does at rest; the rules and the words are these for both.
 *
 * A function's share pays for what its own calls do, student code it calls included: when one
 * graded function calls another of the student's own (multi-head attention its attention) and that
 * hangs, the hang is the caller's (the call the grader made), and the callee's tests are graded on
 * their own calls.
 */
import type { GradedCase } from '../assignment/cases';
import { specOf, type FunctionSpec } from '../assignment/functions';
import { DEFAULT_MEMORY_BYTES, DIED_AT_CAP, OUT_OF_MEMORY } from '../sandbox/outOfMemory';
import { notRunAfterFault, shareSpent, type Fault } from './hangWords';

/** The whole submission's time budget, every function's share together (`--budget`); a correct submission needs about a second. */
export const DEFAULT_BUDGET_MS = 60_000;

/** The message a session gives a child that printed too much around the capture (lib/sandbox/session.ts). */
export const FLOODED_PIPE = /^flooded its output/;

export { OUT_OF_MEMORY } from '../sandbox/outOfMemory';

/** A call's outcome as faultOf reads it, from the grader's child or from this process. */
interface Ended {
  kind: string;
  budget?: boolean;
  duringLoad?: boolean;
  /** How a child ended (crashed, refused). */
  how?: string;
  /** What it threw. */
  error?: unknown;
}

/**
 * The fault a call's outcome shows, if any: every way a call ends the process running it (a hang
 * at the per-test limit, a death at the memory cap or by process.exit, output or messages the
 * grader refuses), and an allocation that failed at the cap. Each would cost as much again on each
 * of the function's tests, and a new process besides: after one, the function's other tests fail
 * at once, so a submission starts a bounded number of processes whatever it does. A function's
 * share running out is no fault: it ends that function's tests by itself. `memoryBytes`: the cap
 * the call ran under, which a memory fault names.
 */
export function faultOf(outcome: Ended, timeoutMs: number, memoryBytes = DEFAULT_MEMORY_BYTES): Fault | undefined {
  if (outcome.duringLoad) return undefined;
  const how = outcome.how ?? '';
  switch (outcome.kind) {
    case 'timeout':
      return outcome.budget ? undefined : { kind: 'hang', timeoutMs };
    case 'crashed':
      return how.endsWith(DIED_AT_CAP) ? { kind: 'memory', capBytes: memoryBytes } : { kind: 'crash', how };
    case 'refused':
      return FLOODED_PIPE.test(how) ? { kind: 'flood' } : { kind: 'refused', how };
    case 'threw':
      return OUT_OF_MEMORY.test(messageOf(outcome.error)) ? { kind: 'memory', capBytes: memoryBytes } : undefined;
    default:
      return undefined;
  }
}

function messageOf(error: unknown): string {
  try {
    const message = (error as { message?: unknown } | null)?.message;
    return typeof message === 'string' ? message : '';
  } catch {
    return '';
  }
}

/** The status of every test a fault cost, the one it happened in too (verdict.ts). */
export const FAULT_STATUS = { hang: 'timeout', memory: 'crashed', flood: 'error', crash: 'crashed', refused: 'error' } as const;

export class FunctionLedger {
  /** Each function's share of the budget. */
  readonly shareMs: number;
  private readonly spent = new Map<string, number>();
  private readonly faults = new Map<string, { fault: Fault; in: string }>();

  /**
   * `functions`: the ids of those with cases in this run; the budget is shared among them equally.
   * `exported`: how the words name a function (its export).
   */
  constructor(
    readonly budgetMs: number,
    functions: Iterable<string>,
    private readonly exported: (fn: string) => string = (fn) => fn,
  ) {
    this.shareMs = budgetMs / Math.max(1, new Set(functions).size);
  }

  static forCases(budgetMs: number, cases: readonly GradedCase[], functions: readonly FunctionSpec[]): FunctionLedger {
    return new FunctionLedger(budgetMs, cases.map((c) => c.fn), (fn) => specOf(functions, fn).export);
  }

  /** What is left of `fn`'s share (never below 0). */
  left(fn: string): number {
    return Math.max(0, this.shareMs - (this.spent.get(fn) ?? 0));
  }

  charge(fn: string, ms: number): void {
    this.spent.set(fn, (this.spent.get(fn) ?? 0) + Math.max(0, ms));
  }

  /** `fn` faulted in the test `in`; the first fault is the one its other tests name. */
  fault(fn: string, fault: Fault, caseName: string): void {
    if (!this.faults.has(fn)) this.faults.set(fn, { fault, in: caseName });
  }

  /**
   * Why a test of `fn` is not run at all, and the status it ends with (the fault's: a hang's
   * timeout, the memory cap's crash, a flood's error); undefined when it runs.
   */
  blocked(fn: string): { reason: string; status: 'timeout' | 'crashed' | 'error' } | undefined {
    const faulted = this.faults.get(fn);
    if (faulted) return { reason: notRunAfterFault(this.exported(fn), faulted.fault, faulted.in), status: FAULT_STATUS[faulted.fault.kind] };
    return this.left(fn) > 0 ? undefined : { reason: this.spentWords(fn, false), status: 'timeout' };
  }

  /** Words for a test of `fn` its share ran out in (`started`) or before. */
  spentWords(fn: string, started: boolean): string {
    return shareSpent(this.exported(fn), this.shareMs, this.budgetMs, started);
  }
}
