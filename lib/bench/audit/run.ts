/**
 * Grades one mutant and diagnoses its failures with the grader's own code (lib/grading/grade.ts's
 * loop, verdict.ts, diagnoseInChild.ts's explainFailures and childProbe), only without the process
 * boundary: the "session" below runs the submission in this process as the child would (copies of
 * the inputs, what a call changed, normaliseReturn, a time limit per call, a fresh load after a
 * hang and for the hidden cases). It is what the audit needs by the thousand: a contained child per
 * mutant would cost seconds each on a shared machine; this costs a fraction of one.
 */
import { normaliseReturn } from '../../../adapters/normalise';
import { HangError, withinLimit } from '../../../adapters/withinLimit';
import { NotImplementedError, ResultError } from '../../errors';
import { changedInputs, snapshotInputs } from '../../diagnosis/inputsChanged';
import { explainFailures } from '../../grading/diagnoseInChild';
import type { LoadedFixture } from '../../grading/fixtures';
import { phases, runOrder } from '../../grading/grade';
import { invokeCase, type CaseInputs, type CaseRunner } from '../../grading/invoke';
import { afterHang, fromOutcome, type CaseVerdict } from '../../grading/verdict';
import type { ChildSession, SessionOutcome } from '../../sandbox/session';
import { transpileSubmission, type PreparedSubmission } from '../../sandbox/transpile';
import { Tensor } from '../../tensor';
import type { GradedCase, GradedFunction } from '../../../tests/cases';
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

const EXPORTS: Record<GradedFunction, string> = {
  softmax: 'softmax', scaled_dot_product_attention: 'scaledDotProductAttention', causal_mask: 'causalMask', multihead_self_attention: 'multiHeadSelfAttention',
};

/** The child's side in this process: answers a case as lib/sandbox/childMain.ts does. */
class InProcessSession {
  private impl: Record<string, unknown> | undefined;

  constructor(private readonly prepared: PreparedSubmission, private readonly limitMs: number) {}

  /** A new instance of the submission, as a new child loads it. */
  restart(): void {
    this.impl = undefined;
  }

  takeOutput(): string {
    return '';
  }

  async call(fn: GradedFunction, { params, inputs }: CaseInputs): Promise<SessionOutcome> {
    let impl: Record<string, unknown>;
    try {
      impl = this.impl ??= loadSubmission(this.prepared.load);
    } catch (err) {
      return { kind: 'load_failed', error: { name: (err as Error).name, message: (err as Error).message, stack: '', notImplemented: false } };
    }
    const copies: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(inputs)) copies[name] = new Tensor(t.data.slice(), t.shape);
    const before = snapshotInputs(copies);
    const changes = () => {
      const changed = changedInputs(before, copies);
      return changed.length ? { changed } : {};
    };
    const call = (name: string) => (...args: unknown[]) => withinLimit(fn, () => (impl[name] as (...a: unknown[]) => unknown).apply(impl, args), this.limitMs);
    const runner: CaseRunner<unknown> = {
      runSoftmax: call(EXPORTS.softmax), runScaledDotProductAttention: call(EXPORTS.scaled_dot_product_attention),
      runCausalMask: call(EXPORTS.causal_mask), runMultiHeadSelfAttention: call(EXPORTS.multihead_self_attention),
    };
    try {
      const tensor = normaliseReturn(fn, invokeCase(fn, { params, inputs: copies }, runner));
      return { kind: 'value', value: { shape: [...tensor.shape], data: tensor.data }, output: '', ...changes() };
    } catch (err) {
      if (err instanceof HangError) {
        // The grader kills a child that hangs; its next call meets a new one.
        this.restart();
        return { kind: 'timeout' };
      }
      const { name, message } = err instanceof Error ? err : { name: 'thrown value', message: String(err) };
      return {
        kind: 'threw', output: '', unreadable: err instanceof ResultError,
        error: { name, message, stack: '', notImplemented: err instanceof NotImplementedError }, ...changes(),
      };
    }
  }
}

/** Every case's verdict and diagnosis, as the grader gives them, for one mutant's files. */
export async function gradeMutant(
  files: Record<string, string>, entry: string, label: string, cases: readonly GradedCase[], fixtures: ReadonlyMap<string, LoadedFixture>, limitMs: number,
): Promise<CaseOutcome[] | string> {
  const prepared = transpileSubmission({ files, entry, label });
  if (prepared.loadErrors.length || prepared.refused.length) return [...prepared.loadErrors, ...prepared.refused][0];
  const session = new InProcessSession(prepared, limitMs);
  const limits = { timeoutMs: limitMs, budgetMs: Infinity };
  const verdicts = new Map<string, CaseVerdict>();
  const hung = new Map<GradedFunction, string>();
  for (const phase of phases(cases)) {
    session.restart();
    for (const graded of runOrder(phase)) {
      const hungIn = hung.get(graded.fn);
      if (hungIn) {
        verdicts.set(graded.name, afterHang(graded, limits, hungIn));
        continue;
      }
      const fixture = fixtures.get(graded.fixture)!;
      const outcome = await session.call(graded.fn, { params: fixture.params, inputs: fixture.inputs });
      if (outcome.kind === 'load_failed') return `the mutant failed to load: ${outcome.error.message}`;
      if (outcome.kind === 'timeout') hung.set(graded.fn, graded.name);
      verdicts.set(graded.name, fromOutcome(outcome, graded, fixture, limits, prepared));
    }
    await explainFailures(session as unknown as ChildSession, phase, fixtures, verdicts);
  }
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
