/**
 * The diagnosis when grading: probes call the submission again in the same contained child, after
 * every case has its verdict, so a probe that hangs, crashes or lies changes no points (a probe
 * that gives no answer is simply no evidence). What the probes print is nobody's feedback.
 */
import { createHash } from 'node:crypto';
import { explain } from '../diagnosis/diagnose';
import type { Probe, ProbeAnswer, ProbeContext } from '../diagnosis/probe';
import type { CaseInputs } from './invoke';
import type { ChildSession } from '../sandbox/session';
import { Tensor } from '../tensor';
import type { GradedCase, GradedFunction } from '../../tests/cases';
import type { LoadedFixture } from './fixtures';
import { withExplanation, type CaseVerdict } from './verdict';

/** A probe's call and inputs, by content: the heatmaps ask again for what the diagnosis already probed. */
function probeKey(fn: string, { params, inputs }: CaseInputs): string {
  const hash = createHash('sha256').update(`${fn}\0${JSON.stringify(params)}`);
  for (const [name, t] of Object.entries(inputs)) {
    hash.update(`\0${name}:${t.dtype}:${t.shape.join(',')}\0`).update(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  }
  return hash.digest('hex');
}

/** What each session's submission answered to each probe, by probeKey. */
const answered = new WeakMap<ChildSession, Map<string, ProbeAnswer>>();

/**
 * Probes through the child. The same call with the same inputs is asked once per session (its
 * first answer is the evidence: the heatmaps reuse what the diagnosis probed), unless a premise
 * asks it `again`; after one that gets no answer (a hang, a crash) the rest of this probe's new
 * calls give none at once, so a submission that fights probes costs one time limit, not one per
 * probe. Each call's inputs reach the child as copies, which it holds against what the function
 * left of them (the answer's `changed`).
 */
export function childProbe(session: ChildSession): Probe {
  const answers = answered.get(session) ?? new Map<string, ProbeAnswer>();
  answered.set(session, answers);
  let givenUp: string | undefined;
  const ask = async (fn: GradedFunction, inputs: CaseInputs): Promise<ProbeAnswer> => {
    const outcome = await session.call(fn, inputs);
    session.takeOutput();
    const changed = (outcome.kind === 'value' || outcome.kind === 'threw') && outcome.changed ? { changed: outcome.changed } : {};
    if (outcome.kind === 'value') return { kind: 'value', output: new Tensor(outcome.value.data, outcome.value.shape), ...changed };
    if (outcome.kind === 'threw') return { kind: 'threw', name: outcome.error.name, message: outcome.error.message, ...changed };
    givenUp = outcome.kind === 'timeout' ? 'the function did not finish within the time limit'
      : outcome.kind === 'crashed' || outcome.kind === 'refused' ? `the process running the submission ${outcome.how}` : 'the submission failed to load';
    return { kind: 'none', why: givenUp };
  };
  return async (fn, inputs, options) => {
    const key = probeKey(fn, inputs);
    const known = answers.get(key);
    if (known && !options?.again) return known;
    if (givenUp) return { kind: 'none', why: givenUp };
    const answer = await ask(fn, inputs);
    // The first answer stays the evidence for later asks.
    if (!known) answers.set(key, answer);
    return answer;
  };
}

/** Each verdict with evidence, explained: the diagnosis leads its reason, or a note joins its details. */
export async function explainFailures(
  session: ChildSession,
  cases: readonly GradedCase[],
  fixtures: ReadonlyMap<string, LoadedFixture>,
  verdicts: Map<string, CaseVerdict>,
): Promise<void> {
  const attentionFailures = cases
    .filter((c) => c.fn === 'scaled_dot_product_attention' && verdicts.get(c.name)?.status !== 'passed')
    .map((c) => c.name);
  const context: ProbeContext = { probe: childProbe(session), attentionFailures: async () => attentionFailures };
  for (const graded of cases) {
    const verdict = verdicts.get(graded.name);
    if (!verdict?.evidence) continue;
    verdicts.set(graded.name, withExplanation(verdict, await explain(graded, fixtures.get(graded.fixture)!, verdict.evidence, context)));
  }
}
