/**
 * The diagnosis when grading: probes call an instance of the submission of its own, after every
 * case has its verdict (grade.ts: a new instance in the child that graded the visible cases, or a
 * new child after hidden ones), so a probe that hangs, crashes or lies changes no points (a probe
 * that gives no answer is simply no evidence). What the probes print is nobody's feedback.
 */
import { expectedShapes, type CaseInputs } from '../assignment/call';
import type { GradedCase } from '../assignment/cases';
import { specOf } from '../assignment/functions';
import { explain } from '../diagnosis/explain';
import type { Assignment } from './assignment';
import type { EarlierCall, Probe, ProbeAnswer, ProbeCall, ProbeContext } from '../diagnosis/probe';
import { runOrder } from '../model/invoke';
import { answerToLast, askingOnce, noAnswer, valueAnswer } from './probeCalls';
import type { ChildSession } from '../sandbox/session';
import type { LoadedFixture } from '../model/fixtures';
import { withExplanation, type CaseVerdict } from './verdict';

/** What each session's submission answered to each probe, by probeKey (probeCalls.ts). */
const answered = new WeakMap<ChildSession, Map<string, ProbeAnswer>>();

/**
 * Probes through the child (probeCalls.ts askingOnce: each call asked once per session, its first
 * answer is the evidence, the heatmaps reuse what the diagnosis probed, unless a premise asks it
 * `again`; after one that gets no answer, a hang or a crash, the rest of this probe's new calls
 * give none at once, so a submission that fights probes costs one time limit, not one per probe).
 * Each call's inputs reach the child's function as copies, which it holds against what the
 * function left of them (the answer's `changed`).
 */
export function childProbe(session: ChildSession): Probe {
  const answers = answered.get(session) ?? new Map<string, ProbeAnswer>();
  answered.set(session, answers);
  return askingOnce((fn, inputs) => callInChild(session, fn, inputs), answers);
}

/** One call in the session's child, its answer as a probe's. */
async function callInChild(session: ChildSession, fn: string, inputs: CaseInputs): Promise<ProbeAnswer> {
  const outcome = await session.call(fn, inputs);
  session.takeOutput();
  const changed = (outcome.kind === 'value' || outcome.kind === 'threw') && outcome.changed.length ? { changed: outcome.changed } : {};
  if (outcome.kind === 'value') {
    const spec = specOf(session.functions, fn);
    return { ...valueAnswer(spec, outcome.value, expectedShapes(spec, inputs)), ...changed };
  }
  if (outcome.kind === 'threw') return { kind: 'threw', name: outcome.error.name, message: outcome.error.message, ...changed };
  return noAnswer(outcome);
}

/**
 * Calls in a child of their own (a sibling session, ended after), as npm test makes them in an
 * instance of their own: the probes' child is left as it was. A call with no answer ends it.
 */
async function inFreshChild(session: ChildSession, calls: readonly ProbeCall[]): Promise<ProbeAnswer> {
  const fresh = session.sibling();
  try {
    return await answerToLast(calls, ({ fn, inputs }) => callInChild(fresh, fn, inputs));
  } finally {
    fresh.kill();
  }
}

/** The phase's graded calls before `graded`, in the order the child met them (grade.ts runs each phase in runOrder). */
function callsBeforeIn(cases: readonly GradedCase[], fixtures: ReadonlyMap<string, LoadedFixture>): (graded: GradedCase) => EarlierCall[] {
  const order = runOrder(cases);
  return (graded) => order.slice(0, Math.max(0, order.findIndex((c) => c.name === graded.name))).map((c) => {
    const fixture = fixtures.get(c.fixture)!;
    return { name: c.name, fn: c.fn, inputs: () => ({ params: fixture.params, inputs: fixture.inputs }) };
  });
}

/** Each verdict with evidence, explained: the diagnosis leads its reason, or a note joins its details. */
export async function explainFailures(
  assignment: Pick<Assignment, 'diagnosis'>,
  session: ChildSession,
  cases: readonly GradedCase[],
  fixtures: ReadonlyMap<string, LoadedFixture>,
  verdicts: Map<string, CaseVerdict>,
): Promise<void> {
  const failures = async (fn: string) => cases.filter((c) => c.fn === fn && verdicts.get(c.name)?.status !== 'passed').map((c) => c.name);
  const context: ProbeContext = {
    probe: childProbe(session), failures, callsBefore: callsBeforeIn(cases, fixtures), inFreshInstance: (calls) => inFreshChild(session, calls),
  };
  // Loaded only when a case has something to explain.
  let diagnoser: Awaited<ReturnType<NonNullable<Assignment['diagnosis']>>> | undefined;
  for (const graded of cases) {
    const verdict = verdicts.get(graded.name);
    if (!verdict?.evidence) continue;
    diagnoser ??= await assignment.diagnosis?.();
    verdicts.set(graded.name, withExplanation(verdict, await explain(diagnoser, graded, fixtures.get(graded.fixture)!, verdict.evidence, context)));
  }
}
