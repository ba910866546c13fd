/**
 * The diagnosis when grading: probes call the submission again in the same contained child, after
 * every case has its verdict, so a probe that hangs, crashes or lies changes no points (a probe
 * that gives no answer is simply no evidence). What the probes print is nobody's feedback.
 */
import { explain } from '../diagnosis/diagnose';
import type { Probe, ProbeContext } from '../diagnosis/probe';
import type { ChildSession } from '../sandbox/session';
import { Tensor } from '../tensor';
import type { GradedCase } from '../../tests/cases';
import type { LoadedFixture } from './fixtures';
import { withExplanation, type CaseVerdict } from './verdict';

/** Probes through the child; after one that gets no answer (a hang, a crash) the rest give none at once, so a submission that fights probes costs one time limit, not one per probe. */
export function childProbe(session: ChildSession): Probe {
  let givenUp: string | undefined;
  return async (fn, inputs) => {
    if (givenUp) return { kind: 'none', why: givenUp };
    const outcome = await session.call(fn, inputs);
    session.takeOutput();
    if (outcome.kind === 'value') return { kind: 'value', output: new Tensor(outcome.value.data, outcome.value.shape) };
    if (outcome.kind === 'threw') return { kind: 'threw', name: outcome.error.name, message: outcome.error.message };
    givenUp = outcome.kind === 'timeout' ? 'the function did not finish within the time limit'
      : outcome.kind === 'crashed' ? `the process running the submission ${outcome.how}` : 'the submission failed to load';
    return { kind: 'none', why: givenUp };
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
