/**
 * What a failing case's student reads beyond the verdict, the same in both paths: the
 * assignment's diagnosis (its Diagnoser: a named cause, from probes of the student's own
 * functions), or, where it names none or the assignment has none, only what the output itself
 * shows (how much of it is out of tolerance and where), never a guess at a cause.
 */
import { toleranceOf, type GradedCase } from '../assignment/cases';
import type { Tolerance, Values } from '../compare';
import { formatIndex, formatNumber, plural, unravelIndex } from '../format';
import type { LoadedFixture } from '../model/fixtures';
import { formatShape } from '../shape';
import type { ProbeContext } from './probe';

export interface Diagnosis {
  /** The cause's id in the assignment's catalogue; ids joined by '|' when several give this same output, by '+' when several show at once. */
  mistake: string;
  message: string;
}

/** threw: the submission's code threw. unreadable: what it returned was refused (NaN, a wrong type…). */
export interface Failure {
  kind: 'threw' | 'unreadable';
  name: string;
  message: string;
}

/** What a failing case produced: an output that a check refused (a tuple return's failing `part`), or a failure with no output. */
export type Outcome = { kind: 'output'; output: Values; part?: string } | Failure;

export interface Explanation {
  diagnosis?: Diagnosis;
  /** A line for the student: the diagnosis, or that no known cause shows (and how far off an output is); '' when there is nothing to add. */
  note: string;
}

/** A cause the assignment's diagnosis may name, with the words a student reads. */
export interface Cause {
  id: string;
  message: string;
  /**
   * No cause at all: only what a probe saw, true of any code that answers the probe this way (a
   * report lists no observation among a course's causes).
   */
  observation?: true;
  /** A failure that only follows from another function's (multi-head attention on a broken attention): reports set it apart. */
  knockOn?: true;
}

/** The assignment's diagnosis (Assignment.diagnosis). */
export interface Diagnoser {
  /** The cause of a failing case its evidence confirms, or undefined. */
  diagnose(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome, context: ProbeContext): Promise<Diagnosis | undefined>;
  /** Every cause it may name: reports read their words from here. */
  causes: readonly Cause[];
}

/**
 * Where the verdict found non-finite values, read back from its message (lib/assignment/returns.ts
 * checkPart): "<export> output has NaN at [0, 3, 1] (48 non-finite values in all). …".
 */
export function parseNonFinite(failure: Failure): { index: number[]; count: number } | undefined {
  if (failure.kind !== 'unreadable') return undefined;
  const found = / output has \S+ at \[([\d, ]*)\] \((\d+) non-finite values? in all\)/.exec(failure.message);
  if (!found) return undefined;
  return { index: found[1] === '' ? [] : found[1].split(', ').map(Number), count: Number(found[2]) };
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

/** The diagnosis of a failing case with its line for the student (see Explanation); `diagnoser`: the assignment's, if it has one. */
export async function explain(
  diagnoser: Diagnoser | undefined, graded: GradedCase, fixture: LoadedFixture, outcome: Outcome, context: ProbeContext,
): Promise<Explanation> {
  const diagnosis = await diagnoser?.diagnose(graded, fixture, outcome, context);
  if (diagnosis) return { diagnosis, note: `Diagnosis: ${diagnosis.message}` };
  if (outcome.kind === 'unreadable') {
    // A result that could not be read already says what to return instead: nothing to add.
    return { note: parseNonFinite(outcome) ? 'No known cause shows behind these non-finite values.' : '' };
  }
  // The tensor module's own errors name the operation and the shapes that do not fit: that line
  // says what is wrong, and "no known cause" after it would only read as a shrug.
  if (outcome.kind !== 'output') return { note: outcome.name === 'ShapeError' ? '' : 'No known cause shows behind this error.' };
  const expected = (outcome.part && fixture.parts[outcome.part]) || fixture.expected;
  // Likewise a wrong shape: the check's line gives the expected shape and the one returned.
  if (outcome.output.shape.join() !== expected.shape.join()) return { note: '' };
  return { note: summarise(outcome.output, expected, toleranceOf(graded, outcome.part ?? '')) };
}
