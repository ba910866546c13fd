/**
 * How the diagnosis's probes reach a submission, the same in both paths: the grader's child
 * (diagnoseInChild.ts) and `npm test`'s instance of the submission kept for probes
 * (adapters/index.ts). Each distinct call is asked once (its first answer is the evidence), and
 * after a call of a function that got no answer no new call of it is asked: code that keeps state,
 * or fights probes, meets the same sequence of probe calls in both.
 */
import { createHash } from 'node:crypto';
import type { CaseInputs } from '../assignment/call';
import { partsOf, type FunctionSpec } from '../assignment/functions';
import { partLabel } from '../assignment/returns';
import type { Probe, ProbeAnswer, ProbeCall } from '../diagnosis/probe';
import { formatShape } from '../shape';
import { Tensor } from '../tensor';

/** A probe's call and inputs, by content: the heatmaps ask again for what the diagnosis already probed. */
export function probeKey(fn: string, { params, inputs }: CaseInputs): string {
  const hash = createHash('sha256').update(`${fn}\0${JSON.stringify(params)}`);
  for (const [name, t] of Object.entries(inputs)) {
    hash.update(`\0${name}:${t.dtype}:${t.shape.join(',')}\0`).update(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  }
  return hash.digest('hex');
}

/** `ask` behind the two rules; `answers` may outlive this probe (the grader keeps them per child session). */
export function askingOnce(ask: (fn: string, inputs: CaseInputs) => Promise<ProbeAnswer>, answers = new Map<string, ProbeAnswer>()): Probe {
  // By function: one function's hang (or its spent share of the budget) leaves the others' probes alone.
  const givenUp = new Map<string, string>();
  return async (fn, inputs, options) => {
    const key = probeKey(fn, inputs);
    const known = answers.get(key);
    // A premise that calls twice asks `again`: it needs the second answer, not the first one kept.
    if (known && !options?.again) return known;
    const why = givenUp.get(fn);
    if (why) return { kind: 'none', why };
    const answer = await ask(fn, inputs);
    if (answer.kind === 'none') givenUp.set(fn, answer.why);
    // The first answer stays the evidence for later asks.
    if (!known) answers.set(key, answer);
    return answer;
  };
}

/**
 * `calls` one after another through `ask` (in one fresh instance, both paths): the answer to the
 * last; a call with no answer ends them, and is the answer.
 */
export async function answerToLast(calls: readonly ProbeCall[], ask: (call: ProbeCall) => ProbeAnswer | Promise<ProbeAnswer>): Promise<ProbeAnswer> {
  let answer: ProbeAnswer = { kind: 'none', why: 'no call was made' };
  for (const call of calls) {
    answer = await ask(call);
    if (answer.kind === 'none') break;
  }
  return answer;
}

/**
 * A probe's answer when the call gave none, in the same words in both paths: it did not finish in
 * time, the process running it ended (`how`, as the grader says it), or the submission did not load.
 */
export function noAnswer(outcome: { kind: 'timeout' } | { kind: 'crashed' | 'refused'; how: string } | { kind: 'load_failed' }): ProbeAnswer {
  const why = outcome.kind === 'timeout' ? 'the function did not finish within the time limit'
    : outcome.kind === 'load_failed' ? 'the submission failed to load' : `the process running the submission ${outcome.how}`;
  return { kind: 'none', why };
}

/**
 * A probe's answer from what the call returned: its values (the first part's as `output`, every
 * part by name), or, when a part's shape alone was read (a larger shape than the one promised,
 * returns.ts judgedByShape), an unreadable return saying so.
 */
export function valueAnswer(
  spec: FunctionSpec,
  returned: ReadonlyArray<{ name: string; value: { shape: readonly number[]; data?: Tensor['data'] } }>,
  expect: readonly (readonly number[] | undefined)[],
): ProbeAnswer {
  const parts: Record<string, Tensor> = {};
  for (const [i, { name, value }] of returned.entries()) {
    if (!value.data) {
      const part = partsOf(spec).find((p) => p.name === name)!;
      return { kind: 'threw', name: 'ResultError', message: `${partLabel(spec, part)} returned shape ${formatShape(value.shape)} where ${formatShape(expect[i] ?? [])} is expected` };
    }
    parts[name] = value instanceof Tensor ? value : new Tensor(value.data, value.shape);
  }
  return { kind: 'value', output: parts[returned[0].name], parts };
}
