/**
 * What every probe takes for granted about the code it calls, checked before any probe speaks.
 * A probe reads the student's function as attention (or multi-head attention) that is wrong in one
 * way: a second call with other inputs must answer for the same code, so the function must keep
 * nothing from one call to the next and leave its inputs as they were given; the attention probes
 * also read each query, each batch entry and V apart from the others (attentionPremises.ts). When
 * a premise does not hold, what a probe measures is not what it claims to measure: the broken
 * premise is the diagnosis, and no probe that relies on it speaks (each declares its premises).
 */
import { formatIndex, formatNumber, unravelIndex } from '../../lib/format';
import type { CaseInputs } from '../../lib/assignment/call';
import type { GradedFunction } from '../../lib/assignment/cases';
import { changedWords as inputsWords } from './words';
import { firstDifference, sameAnswer, type Finding, type ProbeAnswer, type ProbeContext } from '../../lib/diagnosis/probe';

export type PremiseId =
  /** The same call twice in a row gives the same answer. */
  | 'repeatable'
  /** A call with other inputs in between changes no later answer (A, B, A gives A's answer twice). */
  | 'no_carry_over'
  /** A call leaves its inputs as they were given. */
  | 'inputs_unchanged'
  /** A call with other inputs gives another answer: it answers from its arguments, not from what an earlier call left. */
  | 'answers_from_inputs'
  /**
   * The queries in another order give the same output rows in that order (attention): no query's
   * output depends on where it stands, or on what the rows before it left behind.
   */
  | 'queries_exchangeable'
  /** A batch entry's output depends on its own entry's inputs only (attention). */
  | 'entries_independent'
  /** The output is W·V, with W what V = identity returns (attention). */
  | 'linear_in_v';

/** The premises of every probe: it calls the function again and reads the answer as this code's. */
export const CALLS: readonly PremiseId[] = ['inputs_unchanged', 'repeatable', 'no_carry_over', 'answers_from_inputs'];

export type PremiseCheck = () => Promise<Finding | undefined>;

/** Each premise checked once, on demand, in the order a probe lists them. */
export class Premises {
  private readonly results = new Map<PremiseId, Promise<Finding | undefined>>();

  constructor(private readonly checks: Partial<Record<PremiseId, PremiseCheck>>) {}

  /**
   * The finding of the first of `ids` that does not hold; undefined when each holds or cannot be
   * checked here (no answer, a premise this function has not).
   */
  async broken(ids: readonly PremiseId[]): Promise<Finding | undefined> {
    for (const id of ids) {
      const check = this.checks[id];
      if (!check) continue;
      if (!this.results.has(id)) this.results.set(id, check());
      const finding = await this.results.get(id);
      if (finding) return finding;
    }
    return undefined;
  }
}

/** Two values, finite and not zero, that differ: an output that NaN, zeros or one value throughout cannot make. */
function hasInformativeValue({ data }: { data: ArrayLike<number> }): boolean {
  let first: number | undefined;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isFinite(v) || v === 0) continue;
    if (first === undefined) first = v;
    else if (v !== first) return true;
  }
  return false;
}

/** How an answer reads in a sentence: its value at an index, or the error it threw. */
function valueAt(answer: ProbeAnswer, flat: number): string {
  if (answer.kind === 'threw') return `threw ${answer.name}`;
  if (answer.kind !== 'value' || flat >= answer.output.data.length) return 'another shape';
  return formatNumber(answer.output.data[flat]);
}

/** Where two answers first differ, in words: "at [0, 3, 5] (0.12, then 0.24)". */
function difference(first: ProbeAnswer, second: ProbeAnswer): string {
  if (first.kind === 'value' && second.kind === 'value') {
    const flat = firstDifference(first.output, second.output);
    const shapes = first.output.shape.join() === second.output.shape.join();
    if (!shapes) return `shape [${first.output.shape.join(', ')}], then [${second.output.shape.join(', ')}]`;
    return `first at ${formatIndex(unravelIndex(flat, first.output.shape))} (${valueAt(first, flat)}, then ${valueAt(second, flat)})`;
  }
  const say = (a: ProbeAnswer) => (a.kind === 'value' ? 'returned an output' : a.kind === 'threw' ? `threw ${a.name}: ${a.message.slice(0, 120)}` : 'gave no answer');
  return `it ${say(first)}, then ${say(second)}`;
}

/** Which inputs a call changed and where, in words: "mask, first at [0, 2, 5]". */
export function changedWords(answer: ProbeAnswer, inputs: CaseInputs['inputs']): string | undefined {
  if (answer.kind === 'none' || !answer.changed?.length) return undefined;
  return inputsWords(answer.changed, Object.fromEntries(Object.entries(inputs).map(([name, t]) => [name, t.shape])));
}

/**
 * The three premises about calls, from four calls: A, A again, then B (other inputs of the same
 * shapes), then A again. `ids` names the finding of each for this function.
 */
export function callPremises(
  context: ProbeContext, fn: GradedFunction, a: CaseInputs, b: CaseInputs, ids: { stateKept: string; inputsChanged: string },
): Partial<Record<PremiseId, PremiseCheck>> {
  let calls: Promise<ProbeAnswer[]> | undefined;
  const answers = () => (calls ??= (async () => {
    const first = await context.probe(fn, a, { again: true });
    const second = await context.probe(fn, a, { again: true });
    const other = await context.probe(fn, b, { again: true });
    return [first, second, other, await context.probe(fn, a, { again: true })];
  })());
  return {
    inputs_unchanged: async () => {
      const all = await answers();
      const changed = all.map((answer, i) => changedWords(answer, (i === 2 ? b : a).inputs)).find(Boolean);
      return changed ? { id: ids.inputsChanged, evidence: `After a call, these inputs are not what they were given: ${changed}.` } : undefined;
    },
    repeatable: async () => {
      const [first, second] = await answers();
      if (sameAnswer(first, second) !== false) return undefined;
      return { id: ids.stateKept, evidence: `Called twice in a row with the same inputs, it gave different outputs, ${difference(first, second)}.` };
    },
    // A value kept under a key that leaves the values out (a cache by shape) answers B with A's
    // output: every later call meets it, so A, A, B, A agree. Correct code answers other values
    // otherwise, unless its output is made of NaN, zeros or one value throughout, which B may give too.
    answers_from_inputs: async () => {
      const [first, , other] = await answers();
      if (first.kind !== 'value' || other.kind !== 'value' || sameAnswer(first, other) !== true || !hasInformativeValue(first.output)) return undefined;
      return { id: ids.stateKept, evidence: 'Called with other inputs of the same shapes, it gave the same output to the bit.' };
    },
    no_carry_over: async () => {
      const [, second, , fourth] = await answers();
      if (sameAnswer(second, fourth) !== false) return undefined;
      return {
        id: ids.stateKept,
        evidence: `Called with the same inputs before and after a call with other inputs, it gave different outputs, ${difference(second, fourth)}.`,
      };
    },
  };
}
