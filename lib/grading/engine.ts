/**
 * One graded case from start to verdict, the same steps whichever way the submission runs: the
 * grader's contained child (lib/sandbox/session.ts) and npm test's call in its own process
 * (inProcess.ts) are the two backends of this one engine. A case is not run when the submission
 * could not load (the first case to meet that says why, every later one names it) or when its
 * function already faulted or spent its share of the budget (faults.ts); otherwise it is called
 * under the limits, its verdict made from what came back (verdict.ts), a fault recorded so the
 * function's other cases fail at once, and what it changed of its inputs noted (no points). The
 * diagnosis of a failure is each path's to ask for (explain.ts): the grader's after every verdict
 * is in, npm test's at once, each on an instance of the submission of its own.
 */
import type { CaseInputs } from '../assignment/call';
import type { GradedCase } from '../assignment/cases';
import { specOf } from '../assignment/functions';
import type { LoadedFixture } from '../model/fixtures';
import { notRunAfterLoad } from '../model/notRun';
import type { ErrorInfo } from '../sandbox/protocol';
import type { SessionOutcome } from '../sandbox/session';
import type { Assignment } from './assignment';
import { faultOf, type FunctionLedger } from './faults';
import { inputsChangedNote } from './hangWords';
import { blockedVerdict, fromOutcome, type CaseVerdict } from './verdict';
import { runOrder } from '../model/invoke';

/** How a graded function of the submission is called: the grader's contained child, or npm test's own process. */
export interface Backend {
  /** One call, under the per-test limit and its function's share of the budget; never throws for what student code does. */
  call(fn: string, inputs: CaseInputs): Promise<SessionOutcome>;
  /** What the submission printed since the last call outside the call's own capture (a child's pipes). */
  takeOutput(): string;
  /** A thrown error's stack as the student reads it: the message, then the frames in their own files, at the lines they wrote. */
  stackOf(error: ErrorInfo): string;
}

export interface CaseRun {
  verdict: CaseVerdict;
  /** What the call printed (captured, then anything outside the capture). */
  printed: string;
  /** The note (no points) on the inputs the call changed in place; absent when it changed none. */
  inputsChanged?: string;
  /** What the code threw, when it threw: npm test shows it as the student's own error. */
  thrown?: ErrorInfo;
  durationMs: number;
}

export interface EngineLimits {
  timeoutMs: number;
  memoryBytes: number;
}

export class CaseEngine {
  /** The verdict of the case that found the submission cannot load, and that case's name. */
  private loadFailure?: { verdict: CaseVerdict; in: string };

  constructor(
    private readonly assignment: Pick<Assignment, 'functions' | 'nonFiniteHint' | 'inputsChangedFix'>,
    readonly ledger: FunctionLedger,
    private readonly limits: EngineLimits,
  ) {}

  /** Whether a case found that the submission cannot load: nothing is run any more. */
  get loadFailed(): boolean {
    return this.loadFailure !== undefined;
  }

  /** The verdict of the case that found the submission cannot load, when one did. */
  get loadFailureVerdict(): CaseVerdict | undefined {
    return this.loadFailure?.verdict;
  }

  /** The submission cannot load (found before any call: npm test's load check): `test` says why with `verdict`, every later case names it. */
  failLoad(verdict: CaseVerdict, test: string): void {
    this.loadFailure ??= { verdict, in: test };
  }

  /** Why `graded` is not run, as its verdict, or undefined when it runs. */
  private notRun(graded: GradedCase): CaseVerdict | undefined {
    if (this.loadFailure) return { status: this.loadFailure.verdict.status, reason: notRunAfterLoad(this.loadFailure.in), details: '' };
    const blocked = this.ledger.blocked(graded.fn);
    return blocked && blockedVerdict(blocked);
  }

  async run(graded: GradedCase, fixture: LoadedFixture, backend: Backend): Promise<CaseRun> {
    const skipped = this.notRun(graded);
    if (skipped) return { verdict: skipped, printed: '', durationMs: 0 };
    const started = Date.now();
    const outcome = await backend.call(graded.fn, { params: fixture.params, inputs: fixture.inputs });
    const verdict = fromOutcome(outcome, graded, fixture, { ...this.limits, assignment: this.assignment, ledger: this.ledger }, backend.stackOf);
    // A submission that cannot load fails the same way every time: said once, by this case; no more runs.
    if (outcome.duringLoad) this.loadFailure = { verdict, in: graded.name };
    // A hang, the memory cap, a flood: the function's other cases fail at once (faults.ts).
    const fault = faultOf(outcome, this.limits.timeoutMs, this.limits.memoryBytes);
    if (fault) this.ledger.fault(graded.fn, fault, graded.name);
    const answered = outcome.kind === 'value' || outcome.kind === 'threw' ? outcome : undefined;
    const inputsChanged = answered?.changed.length
      ? inputsChangedNote(this.assignment, specOf(this.assignment.functions, graded.fn), answered.changed, graded.name, fixture.inputs)
      : undefined;
    const printed = [answered?.output ?? '', backend.takeOutput()].filter(Boolean).join('\n');
    return {
      verdict, printed, durationMs: Date.now() - started,
      ...(inputsChanged && { inputsChanged }),
      ...(outcome.kind === 'threw' && !outcome.unreadable && { thrown: outcome.error }),
    };
  }
}

/** The visible cases, then the hidden ones (when there are any): graded in that order, each phase on an instance of its own. */
export function phases<C extends GradedCase>(cases: readonly C[]): C[][] {
  return [cases.filter((c) => !c.hidden), cases.filter((c) => c.hidden)].filter((phase) => phase.length > 0);
}

/**
 * Every case as the grader grades a submission: phase by phase, `fresh` called between two (a
 * new instance: nothing a hidden case gave the code reaches another case), each phase in the
 * table's order (runOrder, as npm test calls them, so code that keeps state sees one sequence).
 * Each case's run by name, in the order they ran; the grader, the audit and the self-tests that
 * grade in this process share this one loop.
 */
export async function runPhases(
  engine: CaseEngine, cases: readonly GradedCase[], fixtureOf: (graded: GradedCase) => LoadedFixture, backend: Backend, fresh: () => void,
): Promise<Map<string, CaseRun>> {
  const runs = new Map<string, CaseRun>();
  for (const [at, phase] of phases(cases).entries()) {
    if (at > 0) fresh();
    for (const graded of runOrder(phase)) runs.set(graded.name, await engine.run(graded, fixtureOf(graded), backend));
  }
  return runs;
}

/** Each case's verdict, from its run (runPhases). */
export function verdictsOf(runs: ReadonlyMap<string, CaseRun>): Map<string, CaseVerdict> {
  return new Map([...runs].map(([name, run]) => [name, run.verdict]));
}
