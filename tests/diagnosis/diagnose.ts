/**
 * This assignment's diagnosis (the harness's Diagnoser, lib/diagnosis/explain.ts): names the cause
 * of a failing case, for npm test and the grader alike (one path, the same words). Attention and
 * multi-head failures are diagnosed by probing the student's own functions (attention.ts,
 * multiHead.ts); a softmax or causal-mask output is compared with what each known mistake outputs
 * on the case (stored with the fixture, read only now that the case failed), and an error or NaN
 * goes to the mistakes' recognisers. When no evidence shows a cause it names none; the harness
 * then says what the output itself shows.
 */
import type { GradedCase } from '../../lib/assignment/cases';
import type { Values } from '../../lib/compare';
import type { Diagnoser, Diagnosis, Outcome } from '../../lib/diagnosis/explain';
import type { LoadedFixture } from '../../lib/model/fixtures';
import { diagnoseAttention } from './attention';
import { diagnoseBackward } from './backward';
import { BACKWARD_MISTAKES } from './backwardMistakes';
import { GRADIENT_IDS } from '../../adapters/gradients';
import { diagnosedByProbing, MISTAKES, mistakesOf, type Mistake } from './catalogue';
import { diagnoseMultiHead } from './multiHead';
import { causalCells, diagnoseSoftmax } from './outputFindings';
import { probeOutput, withinTolerance, type Finding, type ProbeContext } from '../../lib/diagnosis/probe';

/** Softmax and causal-mask mistakes: the stored outputs an output matches, or the recogniser an error fits. */
function matchStored(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome): Mistake[] {
  if (outcome.kind !== 'output') {
    // Two recognisers that fit the same evidence tell it apart from neither: name none.
    const recognised = mistakesOf(graded.fn).filter((m) => m.recognise?.(outcome, fixture.inputs, fixture.params));
    return recognised.length === 1 ? recognised : [];
  }
  const stored = fixture.mistakes();
  return mistakesOf(graded.fn).filter((m) => {
    const target = stored.get(m.id);
    return target !== undefined && !isConstant(target) && withinTolerance(outcome.output, target, graded.tolerance);
  });
}

/**
 * A stored output whose entries are all one value (causalMask(1) off by one is [[0]]) is also what
 * an empty mask, an additive 0/−∞ mask and many other mistakes give: matching it confirms none.
 */
function isConstant(t: Values): boolean {
  for (let i = 1; i < t.data.length; i++) if (t.data[i] !== t.data[0]) return false;
  return true;
}

/**
 * Softmax mistakes read from where exp leaves its range (no max subtracted, or the whole tensor's):
 * confirmed when the function is right on x with each slice shifted so that its max is 0, and again
 * 30, which a softmax cannot see and these mistakes can. On inputs where every exp overflows, NaN
 * everywhere is also what any NaN or undefined gives: the shift tells them apart. The second shift
 * tells them from a softmax right only where a slice's max is 0 (a denominator summed over the
 * unshifted exps, each slice off by e^max): none of these mistakes reaches exp's edge at 30.
 */
const CONFIRMED_BY_SHIFT = new Set(['softmax_unstable', 'softmax_global_max']);

async function rightWhenShifted(graded: GradedCase, fixture: LoadedFixture, context: ProbeContext): Promise<boolean> {
  const x = fixture.inputs.x.astype('float64');
  for (const to of [0, 30]) {
    const shifted = x.sub(x.max(fixture.params.dim, true)).add(to);
    if (!withinTolerance(await probeOutput(context, 'softmax', { params: fixture.params, inputs: { x: shifted } }), fixture.expected, graded.tolerance)) return false;
  }
  return true;
}

const messageOf = (id: string) => MISTAKES.find((m) => m.id === id)!.message;

function fromFindings(findings: readonly Finding[]): Diagnosis | undefined {
  if (findings.length === 0) return undefined;
  const say = (f: Finding) => (f.evidence ? `${messageOf(f.id)} (${f.evidence})` : messageOf(f.id));
  return { mistake: findings.map((f) => [f.id, ...(f.sameAs ?? [])].join('|')).join('+'), message: findings.map(say).join(' Also: ') };
}

async function findingsOf(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome, context: ProbeContext): Promise<Finding[]> {
  if (graded.fn === 'multihead_self_attention') return diagnoseMultiHead(graded, fixture, outcome, context);
  // An error that reads like a known mistake is confirmed by a probe there, not named from its words.
  return diagnoseAttention(graded, fixture, outcome, context);
}

export async function diagnose(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome, context: ProbeContext): Promise<Diagnosis | undefined> {
  if (GRADIENT_IDS.has(graded.fn)) return diagnoseBackward(graded, fixture, outcome, context);
  if (diagnosedByProbing(graded.fn)) {
    return fromFindings(await findingsOf(graded, fixture, outcome, context));
  }
  let matched = matchStored(graded, fixture, outcome);
  if (matched.length === 1 && CONFIRMED_BY_SHIFT.has(matched[0].id) && !(await rightWhenShifted(graded, fixture, context))) matched = [];
  if (matched.length === 0) {
    // No stored mistake: what the output itself shows, said as seen.
    if (graded.fn === 'softmax') return fromFindings(await diagnoseSoftmax(fixture, graded.tolerance, outcome, context));
    return outcome.kind === 'output' ? fromFindings(causalCells(outcome.output, fixture.params.seqLen)) : undefined;
  }
  if (matched.length === 1) return { mistake: matched[0].id, message: matched[0].message };
  return {
    mistake: matched.map((m) => m.id).join('|'),
    message: `Your output fits ${matched.length} known mistakes. ${matched.map((m) => m.message).join(' Or: ')}`,
  };
}

/** This assignment's diagnosis, as the harness is handed it (lib/diagnosis/explain.ts). */
export const DIAGNOSIS: Diagnoser = { diagnose, causes: [...MISTAKES, ...BACKWARD_MISTAKES] };
