/**
 * What a failing case's student reads beyond the verdict, the same in both paths: the
 * harness's own check that the failing call answers the same when made again (replayDiffers, below), then the
 * assignment's diagnosis (its Diagnoser: a named cause, from probes of the student's own
 * functions), or, where it names none (or only what its probes saw) or the assignment has none,
 * what the output itself shows: its facts against the expected output (outputFacts.ts), else how
 * much of it is out of tolerance and where; never a guess at a cause.
 */
import type { CaseInputs } from '../assignment/call';
import { toleranceOf, type GradedCase } from '../assignment/cases';
import type { Tolerance, Values, Widening } from '../compare';
import { formatIndex, formatNumber, plural, unravelIndex } from '../format';
import { boundWidening, type LoadedFixture } from '../model/fixtures';
import { formatShape } from '../shape';
import { OUTPUT_FACTS, outputFacts } from './outputFacts';
import { firstDifference, type EarlierCall, type ProbeAnswer, type ProbeCall, type ProbeContext } from './probe';

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

/**
 * What a failing case produced: an output that a check refused (a tuple return's failing `part`;
 * `exact`: a part compared exactly, a mask or indices, not within a tolerance), or a failure with
 * no output.
 */
export type Outcome = { kind: 'output'; output: Values; part?: string; exact?: true } | Failure;

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

/**
 * How far off an output that no known mistake explains is: share out of tolerance, largest error and
 * where. `tol` undefined: the output is compared exactly (a mask, indices), and the words say so.
 * `widening`: the case's error bound where it is wider, read as the check reads it (lib/compare.ts
 * checkClose), so the count is the check line's.
 */
export function summarise(output: Values, expected: Values, tol: Tolerance | undefined, widening?: Widening): string {
  const sameShape = output.shape.length === expected.shape.length && output.shape.every((n, i) => n === expected.shape[i]);
  if (!sameShape) return `${NO_CAUSE} (shape ${formatShape(output.shape)} where ${formatShape(expected.shape)} is expected).`;
  let bad = 0;
  let worst = 0;
  let worstAt = 0;
  let bounds: ArrayLike<number> | undefined;
  for (let i = 0; i < expected.data.length; i++) {
    const err = Math.abs(output.data[i] - expected.data[i]);
    const within = err <= (tol ? tol.atol + tol.rtol * Math.abs(expected.data[i]) : 0) || (tol !== undefined && widening !== undefined && err <= (bounds ??= widening.bounds())[i]);
    if (!within) bad++;
    if (!(err <= worst)) [worst, worstAt] = [err, i];
  }
  if (bad === 0) return `${NO_CAUSE}; every value is ${tol ? 'within tolerance' : 'the expected one'}, so the check above says what is wrong.`;
  const share = Number(((100 * bad) / expected.data.length).toPrecision(2));
  const off = tol ? 'are out of tolerance, the largest error is' : 'differ from the expected ones (compared exactly), the largest difference is';
  return `${NO_CAUSE}; ${share}% of the values (${bad} of ${plural(expected.data.length, 'value')}) ${off} ${formatNumber(worst)} at ${formatIndex(unravelIndex(worstAt, expected.shape))}.`;
}

/**
 * The premise under every diagnosis, checked first and on the graded call itself: the function
 * answers from its arguments alone. The failing call is made again with the case's own inputs (the
 * grader's probes and npm test's run in an instance of the submission of its own, the grader's
 * after every graded call); an answer that differs from the graded one is a measured fact, and then
 * no probe can be trusted to read the code: the diagnosis says that, and nothing else. A cache
 * keyed on part of the inputs (a mask kept by shape) gives itself away here even where a probe's
 * own repeated calls agree, because the graded call met state the replay does not.
 */
const CALLED_AGAIN = "Called again with this test's inputs, your function gives another answer";
const KEEPS_STATE =
  'it keeps state between calls or reads something besides its arguments. Make each call compute from its arguments alone; ' +
  'no other cause is named, as a probe of such code would not show how it went wrong.';

export const ANSWER_CHANGES: Cause = { id: 'answer_changes_when_called_again', message: `${CALLED_AGAIN}: ${KEEPS_STATE}` };

/** The diagnosis when the replay of the failing call answers otherwise than the graded call did; undefined when it agrees or gives no answer. */
export async function replayDiffers(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome, context: ProbeContext): Promise<Diagnosis | undefined> {
  // A result that could not be read is not compared: a probe reads returns its own way.
  if (outcome.kind === 'unreadable') return undefined;
  const answer = await context.probe(graded.fn, { params: fixture.params, inputs: fixture.inputs });
  if (answer.kind === 'none') return undefined;
  const seen = outcome.kind === 'output' ? afterOutput(outcome, answer) : afterThrow(outcome, answer);
  if (seen === undefined) return undefined;
  const earlier = await earlierCallThatChangesIt(graded, fixture, outcome, context);
  const found = earlier ? `; ${AFTER_ONE_CALL(earlier)}` : '';
  return { mistake: ANSWER_CHANGES.id, message: `${CALLED_AGAIN} (${seen})${found}: ${earlier ? KEPT_FROM_A_CALL : KEEPS_STATE}` };
}

const AFTER_ONE_CALL = (name: string) => `called in a fresh instance right after a call with the inputs of ${name}, it gives the test's answer again`;
const KEPT_FROM_A_CALL =
  'it keeps state from that call. Make each call compute from its arguments alone; ' +
  'no other cause is named, as a probe of such code would not show how it went wrong.';

/**
 * How many fresh instances the search may start: per failing test (the control and the likeliest
 * earlier calls), and per run of the diagnosis (a grader's phase, an npm test run), as each is a
 * child or an import.
 */
const TRIES_PER_TEST = 4;
const TRIES_PER_RUN = 16;
const triesUsed = new WeakMap<ProbeContext, number>();

const shapesOf = ({ inputs }: CaseInputs) => Object.entries(inputs).map(([name, t]) => `${name}:${t.shape.join('x')}`).join();

/**
 * The earlier calls in the order they are tried: state is most often kept by the function itself,
 * from the first call that met the same shapes (a cache by shape), from its first call ever (a
 * value fixed once), or from its last call (a buffer reused); then the call just before.
 */
function likeliestFirst(calls: readonly EarlierCall[], failing: ProbeCall): EarlierCall[] {
  const own = calls.filter((c) => c.fn === failing.fn);
  const shapes = shapesOf(failing.inputs);
  const order = [own.find((c) => shapesOf(c.inputs()) === shapes), own[0], own.at(-1), calls.at(-1)];
  return [...new Set(order.filter((c): c is EarlierCall => c !== undefined))];
}

/**
 * The graded call before the failing one that, made first in a fresh instance, makes the failing
 * call answer exactly as it did in the test: a counterfactual run that confirms which call leaves
 * the state. Undefined when the context cannot replay, or no call among those tried does it.
 */
async function earlierCallThatChangesIt(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome, context: ProbeContext): Promise<string | undefined> {
  const { callsBefore, inFreshInstance } = context;
  if (!callsBefore || !inFreshInstance) return undefined;
  const failing: ProbeCall = { fn: graded.fn, inputs: { params: fixture.params, inputs: fixture.inputs } };
  /** The answer to `calls` in a fresh instance is the test's own, to the bit; undefined when no instance may be started or it gave no answer. */
  const givesTestsAnswer = async (calls: ProbeCall[]): Promise<boolean | undefined> => {
    const used = triesUsed.get(context) ?? 0;
    if (used >= TRIES_PER_RUN) return undefined;
    triesUsed.set(context, used + 1);
    const answer = await inFreshInstance(calls);
    if (answer.kind === 'none') return undefined;
    return isTestsAnswer(outcome, answer);
  };
  // The control: alone in a fresh instance the call must not give the test's answer, or no earlier call is what changed it.
  if ((await givesTestsAnswer([failing])) !== false) return undefined;
  for (const earlier of likeliestFirst(callsBefore(graded), failing).slice(0, TRIES_PER_TEST)) {
    const found = await givesTestsAnswer([{ fn: earlier.fn, inputs: earlier.inputs() }, failing]);
    if (found) return earlier.name;
    if (found === undefined && (triesUsed.get(context) ?? 0) >= TRIES_PER_RUN) return undefined;
  }
  return undefined;
}

/**
 * Whether an answer is the graded one itself: the same values to the bit (the graded part's, for a
 * tuple), or the same error. Stricter than "no difference shown": an answer without the part is not it.
 */
function isTestsAnswer(graded: Outcome, answer: Exclude<ProbeAnswer, { kind: 'none' }>): boolean {
  if (graded.kind !== 'output') return answer.kind === 'threw' && answer.name === graded.name && answer.message === graded.message;
  if (answer.kind !== 'value') return false;
  const again = graded.part ? answer.parts?.[graded.part] : answer.output;
  return again !== undefined && again.shape.join() === graded.output.shape.join() && firstDifference(graded.output, again) < 0;
}

/** How the replay differs from a graded call that threw, or undefined when it threw the same. */
function afterThrow(graded: Failure, answer: Exclude<ProbeAnswer, { kind: 'none' }>): string | undefined {
  const inTest = `${graded.name} in the test`;
  if (answer.kind === 'value') return `${inTest}, an answer when called again`;
  return answer.name === graded.name && answer.message === graded.message ? undefined : `${inTest}, ${answer.name}: ${answer.message.slice(0, 120)} when called again`;
}

/** How the replay differs from a graded output, or undefined when it gives the same to the bit. */
function afterOutput(graded: Extract<Outcome, { kind: 'output' }>, answer: Exclude<ProbeAnswer, { kind: 'none' }>): string | undefined {
  if (answer.kind === 'threw') return `an answer in the test, ${answer.name} when called again`;
  const again = graded.part ? answer.parts?.[graded.part] : answer.output;
  if (!again) return undefined;
  const shape = graded.output.shape;
  if (again.shape.join() !== shape.join()) return `shape [${shape.join(', ')}] in the test, [${again.shape.join(', ')}] when called again`;
  const at = firstDifference(graded.output, again);
  if (at < 0) return undefined;
  return `first at ${formatIndex(unravelIndex(at, shape))}: ${formatNumber(graded.output.data[at])} in the test, ${formatNumber(again.data[at])} when called again`;
}

/** The harness's own causes, beside an assignment's: the replay that answers otherwise, and the facts of an output (outputFacts.ts). */
export const HARNESS_CAUSES: readonly Cause[] = [ANSWER_CHANGES, ...OUTPUT_FACTS];

/** Whether a diagnosis ('a|b', 'a+b') names observations only: what probes saw, no cause. */
const observationsOnly = (mistake: string, causes: readonly Cause[]) =>
  mistake.split(/[|+]/).every((id) => causes.find((c) => c.id === id)?.observation === true);

/**
 * What the graded output itself shows against the expected one (outputFacts.ts), said where the
 * assignment's diagnosis names no cause: a fact of the graded call comes before what probes on
 * other inputs saw.
 */
function factOfOutput(graded: GradedCase, fixture: LoadedFixture, outcome: Outcome): Diagnosis | undefined {
  if (outcome.kind !== 'output') return undefined;
  const expected = (outcome.part && fixture.parts[outcome.part]) || fixture.expected;
  if (outcome.exact) return outputFacts(outcome.output, expected, undefined);
  return outputFacts(outcome.output, expected, toleranceOf(graded, outcome.part ?? ''), boundWidening(fixture, outcome.part));
}

/** The diagnosis of a failing case with its line for the student (see Explanation); `diagnoser`: the assignment's, if it has one. */
export async function explain(
  diagnoser: Diagnoser | undefined, graded: GradedCase, fixture: LoadedFixture, outcome: Outcome, context: ProbeContext,
): Promise<Explanation> {
  // The premise of every probe first, on the graded call itself (replayDiffers, below): when it fails, it is the diagnosis.
  let diagnosis = (await replayDiffers(graded, fixture, outcome, context)) ?? (await diagnoser?.diagnose(graded, fixture, outcome, context));
  if (!diagnosis || observationsOnly(diagnosis.mistake, diagnoser?.causes ?? [])) diagnosis = factOfOutput(graded, fixture, outcome) ?? diagnosis;
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
  const part = outcome.part ?? '';
  return { note: outcome.exact ? summarise(outcome.output, expected, undefined) : summarise(outcome.output, expected, toleranceOf(graded, part), boundWidening(fixture, outcome.part)) };
}
