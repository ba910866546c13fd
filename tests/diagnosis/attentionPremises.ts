/**
 * The premises of the attention probes (premises.ts says why premises come first), each checked by
 * calling the student's function on the case's inputs rearranged in a way attention cannot see:
 * - calls: A, A again, B, A again (B: the case's inputs changed in value, not shape);
 * - queries_exchangeable: the queries in reverse order (no mask) reverse the output's rows;
 * - entries_independent: the batch entries in reverse order (the mask's too) reverse the output's;
 * - linear_in_v: the output is W·V, W being what V = identity returns (weights.ts).
 */
import type { Tolerance } from '../../lib/compare';
import type { Tensor } from '../../lib/tensor';
import { batchAxes, callAttention, inputsOf, reversed, whereRow, type AttentionCase } from './attentionCase';
import { callPremises, Premises } from './premises';
import type { Finding, ProbeContext } from '../../lib/diagnosis/probe';
import { probeProbabilities, weightsTimesValues } from './weights';

/**
 * Two outputs of the same computation on rearranged inputs agree to this: the rearrangement changes
 * no arithmetic of code that respects it, so only what a mistake mixes in is larger.
 */
const REARRANGED: Tolerance = { atol: 1e-6, rtol: 1e-5 };
/** W·V computed here against the function's own product: float32 code rounds each of its sums. */
const PRODUCT: Tolerance = { atol: 1e-5, rtol: 1e-3 };

/** The first row (of `cols` values) where a and b differ beyond the tolerance, NaN matching NaN; -1 when none. */
function firstRowApart(a: ArrayLike<number>, b: ArrayLike<number>, cols: number, { atol, rtol }: Tolerance): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i], b[i]];
    // The same infinity, or NaN where NaN: the same answer.
    if (x === y || (Number.isNaN(x) && Number.isNaN(y))) continue;
    if (!(Math.abs(x - y) <= atol + rtol * Math.abs(y))) return Math.floor(i / cols);
  }
  return -1;
}

/** What the premises read, shared with the probes that rely on them. */
export interface AttentionEvidence {
  premises: Premises;
  /** The function's output on the case's inputs (a probe), undefined when it gave none. */
  output(): Promise<Tensor | undefined>;
  /** Its weights W (V = identity), or a sentence when it gave none. */
  weights(): Promise<Tensor | string>;
}

export function attentionEvidence(c: AttentionCase, context: ProbeContext): AttentionEvidence {
  let output: Promise<Tensor | undefined> | undefined;
  let weights: Promise<Tensor | string> | undefined;
  const evidence: AttentionEvidence = {
    premises: new Premises({}),
    output: () => (output ??= callAttention(context, inputsOf(c))),
    weights: () => (weights ??= probeProbabilities(context.probe, { ...inputsOf(c) })),
  };
  const other = { q: c.q.mul(0.5), k: reversed(c.k, [-2]), v: c.v.add(1), ...(c.mask && { mask: c.mask }) };
  evidence.premises = new Premises({
    ...callPremises(context, 'scaled_dot_product_attention', { params: {}, inputs: { ...inputsOf(c) } }, { params: {}, inputs: other },
      { stateKept: 'state_kept', inputsChanged: 'inputs_changed' }),
    queries_exchangeable: () => queriesExchangeable(c, context),
    entries_independent: () => entriesIndependent(c, context, evidence),
    linear_in_v: () => linearInV(c, evidence),
  });
  return evidence;
}

/** Reversing the queries (Q's rows, no mask) reverses the output's rows: nothing carries from one row to the next. */
async function queriesExchangeable(c: AttentionCase, context: ProbeContext): Promise<Finding | undefined> {
  if (c.grid.queries < 2) return undefined;
  const straight = await callAttention(context, { q: c.q, k: c.k, v: c.v });
  const backwards = await callAttention(context, { q: reversed(c.q, [-2]), k: c.k, v: c.v });
  if (!straight || !backwards || straight.shape.join() !== backwards.shape.join() || straight.ndim < 2) return undefined;
  const row = firstRowApart(straight.data, reversed(backwards, [-2]).data, straight.shape[straight.ndim - 1], REARRANGED);
  if (row < 0) return undefined;
  return {
    id: 'rows_carry_over',
    evidence: `Given the queries in reverse order (no mask), your function does not return the same rows reversed: the first that changes is ${whereRow(c, row)}.`,
  };
}

/** Reversing the batch entries (Q, K, V and the mask's own batch dims) reverses the output's entries. */
async function entriesIndependent(c: AttentionCase, context: ProbeContext, evidence: AttentionEvidence): Promise<Finding | undefined> {
  if (c.grid.batches < 2) return undefined;
  const out = await evidence.output();
  const flip = (t: Tensor) => reversed(t, batchAxes(t));
  const backwards = await callAttention(context, { q: flip(c.q), k: flip(c.k), v: flip(c.v), ...(c.mask && { mask: flip(c.mask) }) });
  if (!out || !backwards || out.shape.join() !== backwards.shape.join() || out.shape.join() !== [...c.batch, c.grid.queries, c.dV].join()) return undefined;
  const row = firstRowApart(out.data, flip(backwards).data, c.dV, REARRANGED);
  if (row < 0) return undefined;
  return {
    id: 'batch_mixed',
    evidence: `Given the batch entries in reverse order, your function does not return the same entries reversed: the first that changes is ${whereRow(c, row)}.`,
  };
}

/** The output is W·V for the case's own V: the weights read with V = identity are what multiplies V. */
async function linearInV(c: AttentionCase, evidence: AttentionEvidence): Promise<Finding | undefined> {
  const out = await evidence.output();
  const w = await evidence.weights();
  if (!out || typeof w === 'string' || out.shape.join() !== [...c.batch, c.grid.queries, c.dV].join()) return undefined;
  const row = firstRowApart(out.data, weightsTimesValues(w, c.v), c.dV, PRODUCT);
  if (row < 0) return undefined;
  return {
    id: 'output_not_pv',
    evidence: `With V = identity your function returns weights W; with the case's V its output is not W·V, first at ${whereRow(c, row)}.`,
  };
}
