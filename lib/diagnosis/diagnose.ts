/**
 * Names the mistake behind a failing case, for the vitest messages and the grader alike: an output
 * is compared with what each known mistake outputs on the case (stored with the fixture, read only
 * now that the case failed); an error or NaN goes to the mistakes' recognisers. When nothing
 * matches an output, the note says how far off it is instead.
 */
import type { GradedCase } from '../../tests/cases';
import { broadcastOffset, type Tolerance, type Values } from '../compare';
import { formatIndex, formatNumber, plural, unravelIndex } from '../format';
import type { LoadedFixture } from '../grading/fixtures';
import { formatShape } from '../shape';
import { mistakesOf, type Mistake } from './catalogue';
import type { Failure } from './signatures';

export interface Diagnosis {
  /** The mistake's id in lib/diagnosis/catalogue.ts; ids joined by '|' when several give this same output. */
  mistake: string;
  message: string;
}

/** What a failing case produced: an output that a check refused, or a failure with no output. */
export type Outcome = { kind: 'output'; output: Values } | Failure;

export interface Explanation {
  diagnosis?: Diagnosis;
  /** A line for the student: the diagnosis, or how far off an unrecognised output is; '' when there is nothing to add. */
  note: string;
}

const sameShape = (a: Values, b: Values) => a.shape.length === b.shape.length && a.shape.every((n, i) => n === b.shape[i]);

/** Every value within atol + rtol·|target| of the target, read as float64 (lib/compare.ts's rule). */
export function withinTolerance(actual: Values, target: Values, tol: Tolerance): boolean {
  if (!sameShape(actual, target)) return false;
  for (let i = 0; i < target.data.length; i++) {
    if (!(Math.abs(actual.data[i] - target.data[i]) <= tol.atol + tol.rtol * Math.abs(target.data[i]))) return false;
  }
  return true;
}

/**
 * Whether a masked key got probability in a row that also has allowed keys: −100 leaks there,
 * −1e9 does not, though both give a fully masked row the same uniform output.
 */
function leaksBesideAllowedKeys(probs: Values, mask: Values): boolean {
  const keys = probs.shape[probs.shape.length - 1];
  for (let row = 0; row * keys < probs.data.length; row++) {
    const index = unravelIndex(row * keys, probs.shape);
    let allowed = false;
    let leaked = false;
    for (let k = 0; k < keys; k++) {
      index[index.length - 1] = k;
      if (mask.data[broadcastOffset(mask.shape, index)] !== 0) allowed = true;
      else if (probs.data[row * keys + k] !== 0) leaked = true;
    }
    if (allowed && leaked) return true;
  }
  return false;
}

function matchOutput(graded: GradedCase, fixture: LoadedFixture, output: Values): Mistake[] {
  const stored = fixture.mistakes();
  const mask = fixture.inputs.mask;
  // With V = identity the output is the probabilities: whether masked keys leak is then visible.
  const leaks = graded.checks.includes('masked_are_zero') && mask ? (v: Values) => leaksBesideAllowedKeys(v, mask) : undefined;
  return mistakesOf(graded.fn).filter((m) => {
    const target = stored.get(m.id);
    return target !== undefined && withinTolerance(output, target, graded.tolerance) && (!leaks || leaks(output) === leaks(target));
  });
}

export function diagnose(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome): Diagnosis | undefined {
  const matched =
    outcome.kind === 'output'
      ? matchOutput(graded, fixture, outcome.output)
      : mistakesOf(graded.fn).filter((m) => m.recognise?.(outcome, fixture.inputs)).slice(0, 1);
  if (matched.length === 0) return undefined;
  if (matched.length === 1) return { mistake: matched[0].id, message: matched[0].message };
  return {
    mistake: matched.map((m) => m.id).join('|'),
    message: `Your output fits ${matched.length} known mistakes. ${matched.map((m) => m.message).join(' Or: ')}`,
  };
}

/** How far off an output that no known mistake explains is: share out of tolerance, largest error and where. */
export function summarise(output: Values, expected: Values, tol: Tolerance): string {
  if (!sameShape(output, expected)) {
    return `No known mistake gives this output (shape ${formatShape(output.shape)} where ${formatShape(expected.shape)} is expected).`;
  }
  let bad = 0;
  let worst = 0;
  let worstAt = 0;
  for (let i = 0; i < expected.data.length; i++) {
    const err = Math.abs(output.data[i] - expected.data[i]);
    if (!(err <= tol.atol + tol.rtol * Math.abs(expected.data[i]))) bad++;
    if (!(err <= worst)) [worst, worstAt] = [err, i];
  }
  if (bad === 0) return 'No known mistake gives this output; every value is within tolerance, so the check above says what is wrong.';
  const share = Number(((100 * bad) / expected.data.length).toPrecision(2));
  return (
    `No known mistake gives this output; ${share}% of the values (${bad} of ${plural(expected.data.length, 'value')}) are out of ` +
    `tolerance, the largest error is ${formatNumber(worst)} at ${formatIndex(unravelIndex(worstAt, expected.shape))}.`
  );
}

/** The diagnosis of a failing case with its line for the student (see Explanation). */
export function explain(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome): Explanation {
  const diagnosis = diagnose(graded, fixture, outcome);
  if (diagnosis) return { diagnosis, note: `Diagnosis: ${diagnosis.message}` };
  if (outcome.kind !== 'output') return { note: '' };
  return { note: summarise(outcome.output, fixture.expected, graded.tolerance) };
}
