/**
 * Names the cause of a failing case, for the vitest messages and the grader alike (one path, the
 * same words): attention and multi-head failures are diagnosed by probing the student's own
 * functions (attention.ts, multiHead.ts); a softmax or causal-mask output is compared with what
 * each known mistake outputs on the case (stored with the fixture, read only now that the case
 * failed), and an error or NaN goes to the mistakes' recognisers. When no evidence shows a cause
 * the note says so, and how far off the output is, rather than guess.
 */
import type { GradedCase } from '../assignment/cases';
import type { Tolerance, Values } from '../compare';
import { formatIndex, formatNumber, plural, unravelIndex } from '../format';
import type { LoadedFixture } from '../model/fixtures';
import { formatShape } from '../shape';
import { diagnoseAttention } from './attention';
import { diagnosedByProbing, MISTAKES, mistakesOf, type Mistake } from './catalogue';
import { diagnoseMultiHead } from './multiHead';
import { causalCells, diagnoseSoftmax } from './outputFindings';
import { probeOutput, withinTolerance, type Finding, type ProbeContext } from './probe';
import { parseNonFinite, type Failure } from './signatures';

export interface Diagnosis {
  /** The mistake's id in lib/diagnosis/catalogue.ts; ids joined by '|' when several give this same output, by '+' when several show at once. */
  mistake: string;
  message: string;
}

/** What a failing case produced: an output that a check refused, or a failure with no output. */
export type Outcome = { kind: 'output'; output: Values; /** A tuple return's failing part. */ part?: string } | Failure;

export interface Explanation {
  diagnosis?: Diagnosis;
  /** A line for the student: the diagnosis, or that no known cause shows (and how far off an output is); '' when there is nothing to add. */
  note: string;
}

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
 * confirmed when the function is right on x with each slice shifted so that its max is 0, which a
 * softmax cannot see and these mistakes can. On inputs where every exp overflows, NaN everywhere
 * is also what any NaN or undefined gives: the shift tells them apart.
 */
const CONFIRMED_BY_SHIFT = new Set(['softmax_unstable', 'softmax_global_max']);

async function rightWhenShifted(graded: GradedCase, fixture: LoadedFixture, context: ProbeContext): Promise<boolean> {
  const x = fixture.inputs.x.astype('float64');
  const shifted = x.sub(x.max(fixture.params.dim, true));
  return withinTolerance(await probeOutput(context, 'softmax', { params: fixture.params, inputs: { x: shifted } }), fixture.expected, graded.tolerance);
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

const NO_CAUSE = 'No known cause shows in what your function returns';

/** How far off an output that no known mistake explains is: share out of tolerance, largest error and where. */
export function summarise(output: Values, expected: Values, tol: Tolerance): string {
  const sameShape = output.shape.length === expected.shape.length && output.shape.every((n, i) => n === expected.shape[i]);
  if (!sameShape) return `${NO_CAUSE} (shape ${formatShape(output.shape)} where ${formatShape(expected.shape)} is expected).`;
  let bad = 0;
  let worst = 0;
  let worstAt = 0;
  for (let i = 0; i < expected.data.length; i++) {
    const err = Math.abs(output.data[i] - expected.data[i]);
    if (!(err <= tol.atol + tol.rtol * Math.abs(expected.data[i]))) bad++;
    if (!(err <= worst)) [worst, worstAt] = [err, i];
  }
  if (bad === 0) return `${NO_CAUSE}; every value is within tolerance, so the check above says what is wrong.`;
  const share = Number(((100 * bad) / expected.data.length).toPrecision(2));
  return (
    `${NO_CAUSE}; ${share}% of the values (${bad} of ${plural(expected.data.length, 'value')}) are out of ` +
    `tolerance, the largest error is ${formatNumber(worst)} at ${formatIndex(unravelIndex(worstAt, expected.shape))}.`
  );
}

/** The diagnosis of a failing case with its line for the student (see Explanation). */
export async function explain(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome, context: ProbeContext): Promise<Explanation> {
  const diagnosis = await diagnose(graded, fixture, outcome, context);
  if (diagnosis) return { diagnosis, note: `Diagnosis: ${diagnosis.message}` };
  if (outcome.kind === 'unreadable') {
    // A result that could not be read already says what to return instead: nothing to add.
    return { note: parseNonFinite(outcome) ? 'No known cause shows behind these non-finite values.' : '' };
  }
  // The tensor module's own errors name the operation and the shapes that do not fit: that line
  // says what is wrong, and "no known cause" after it would only read as a shrug.
  if (outcome.kind !== 'output') return { note: outcome.name === 'ShapeError' ? '' : 'No known cause shows behind this error.' };
  // Likewise a wrong shape: the check's line gives the expected shape and the one returned.
  if (outcome.output.shape.join() !== fixture.expected.shape.join()) return { note: '' };
  return { note: summarise(outcome.output, fixture.expected, graded.tolerance) };
}
