/**
 * Grades one mutant and diagnoses its failures with the grader's own code (the engine of
 * lib/grading/engine.ts and its runPhases, diagnoseInChild.ts's explainFailures and childProbe),
 * only without the process boundary: the "session" below runs the submission in this process as
 * the child would (copies of the inputs, what a call changed, its return read, a time limit per
 * call, a fresh load after a hang and for the hidden cases). It is what the audit needs by the thousand: a contained child per
 * mutant would cost seconds each on a shared machine; this costs a fraction of one.
 */
import { explainFailures } from '../../lib/grading/diagnoseInChild';
import { CaseEngine, phases, runPhases, verdictsOf } from '../../lib/grading/engine';
import { FunctionLedger } from '../../lib/grading/faults';
import type { LoadedFixture } from '../../lib/model/fixtures';
import { InProcessSession as Calls } from '../../lib/grading/inProcess';
import type { Assignment } from '../../lib/grading/assignment';
import type { CaseInputs } from '../../lib/assignment/call';
import { studentStack, type CaseVerdict } from '../../lib/grading/verdict';
import { describeError } from '../../lib/sandbox/errorInfo';
import type { ErrorInfo } from '../../lib/sandbox/protocol';
import { DEFAULT_MEMORY_BYTES } from '../../lib/sandbox/outOfMemory';
import type { ChildSession, SessionOutcome } from '../../lib/sandbox/session';
import { transpileSubmission, type PreparedSubmission } from '../../lib/sandbox/transpile';
import type { GradedCase, GradedFunction } from '../../lib/assignment/cases';
import { loadSubmission } from './load';

export interface CaseOutcome {
  name: string;
  fn: GradedFunction;
  status: CaseVerdict['status'];
  /** The diagnosis's mistake ids ('a|b', 'a+b'), when it named any. */
  mistake?: string;
  /** What the student reads besides the verdict when no diagnosis: '' when the verdict's own words say what is wrong. */
  note?: string;
}

/**
 * The child's side in this process: the calls npm test makes (lib/grading/inProcess.ts: copies of
 * the inputs, what a call changed, the promised shape, a time limit per call), answered as the
 * grader's session answers, with a fresh load of the submission where the grader starts a child.
 */
class InProcessSession {
  private calls: Calls | undefined;

  constructor(private readonly prepared: PreparedSubmission, readonly functions: Assignment['functions'], private readonly limitMs: number) {}

  /** A new instance of the submission, as a new child loads it. */
  restart(): void {
    this.calls = undefined;
  }

  kill(): void {
    this.restart();
  }

  takeOutput(): string {
    return '';
  }

  async call(fn: GradedFunction, inputs: CaseInputs): Promise<SessionOutcome> {
    try {
      this.calls ??= new Calls(loadSubmission(this.prepared.load), this.functions, this.prepared.load.entry, { timeoutMs: this.limitMs });
    } catch (err) {
      return { kind: 'load_failed', error: describeError(err) };
    }
    const outcome = this.calls.call(fn, inputs);
    if (outcome.kind === 'timeout') {
      // The grader kills a child that hangs; its next call meets a new one.
      this.restart();
      return { kind: 'timeout' };
    }
    if (outcome.kind === 'crashed') {
      this.restart();
      return { kind: 'crashed', how: outcome.how };
    }
    const { output, changed, flooded } = outcome;
    if (outcome.kind === 'threw') return { kind: 'threw', error: outcome.error, unreadable: outcome.unreadable, output, changed, flooded };
    const value = outcome.value.map(({ name, value: part }) => ({ name, value: 'data' in part ? { shape: [...part.shape], data: part.data } : { shape: [...part.shape] } }));
    return { kind: 'value', value, output, changed, flooded };
  }
}

/** Every case's verdict and diagnosis, as the grader gives them, for one mutant's files. */
export async function gradeMutant(
  assignment: Assignment, files: Record<string, string>, entry: string, label: string, cases: readonly GradedCase[], fixtures: ReadonlyMap<string, LoadedFixture>, limitMs: number,
): Promise<CaseOutcome[] | string> {
  const prepared = transpileSubmission({ files, entry, label });
  if (prepared.loadErrors.length || prepared.refused.length) return [...prepared.loadErrors, ...prepared.refused][0];
  const session = new InProcessSession(prepared, assignment.functions, limitMs);
  const engine = new CaseEngine(assignment, FunctionLedger.forCases(Infinity, cases, assignment.functions), { timeoutMs: limitMs, memoryBytes: DEFAULT_MEMORY_BYTES });
  const backend = { call: session.call.bind(session), takeOutput: () => '', stackOf: (error: ErrorInfo) => studentStack(error, prepared) };
  // As grade.ts: the graded calls of each phase in an instance of their own, by the grader's engine …
  const runs = await runPhases(engine, cases, (graded) => fixtures.get(graded.fixture)!, backend, () => session.restart());
  if (engine.loadFailureVerdict) return `the mutant failed to load: ${engine.loadFailureVerdict.reason}`;
  const verdicts = verdictsOf(runs);
  // … then the diagnosis in a fresh one, after every graded call.
  session.restart();
  for (const phase of phases(cases)) await explainFailures(assignment, session as unknown as ChildSession, phase, fixtures, verdicts);
  return cases.map((graded) => {
    const verdict = verdicts.get(graded.name)!;
    const note = verdict.diagnosis ? undefined : verdict.evidence ? noteOf(verdict) : '';
    return { name: graded.name, fn: graded.fn, status: verdict.status, ...(verdict.diagnosis && { mistake: verdict.diagnosis.mistake }), ...(note !== undefined && { note }) };
  });
}

/** The line explain() added to the details, if any: the last line of the details that is not the check's own. */
function noteOf(verdict: CaseVerdict): string {
  const last = verdict.details.split('\n').pop() ?? '';
  return /^No known cause/.test(last) ? last : '';
}
