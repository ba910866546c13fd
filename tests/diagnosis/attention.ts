/**
 * Diagnoses a failing scaledDotProductAttention case by calling the student's function again on
 * inputs derived from the case. First the premises every probe relies on (attentionPremises.ts);
 * then causes confirmed by undoing them (Kᵀ or V laid out transposed, K and V or Q and K swapped,
 * the mask broadcast, one batch dim); then where a NaN or a zero row comes from (softmaxRange.ts); last what
 * the weights (V = identity) show (probabilityFindings.ts). Each probe declares its premises in
 * RELIES_ON and speaks only when they hold; a broken premise is the finding instead.
 */
import type { Values } from '../../lib/compare';
import type { LoadedFixture } from '../../lib/model/fixtures';
import { Tensor } from '../../lib/tensor';
import type { GradedCase } from '../../lib/assignment/cases';
import {
  allowedGrid, broadcastMask, callAttention, caseOf, entry, laidOutTransposed, whereRow, type AttentionCase, type AttentionInputs,
} from './attentionCase';
import { attentionEvidence, type AttentionEvidence } from './attentionPremises';
import { CALLS, type PremiseId } from './premises';
import { hasNaN, isAllZero, withinTolerance, type Finding, type ProbeContext } from '../../lib/diagnosis/probe';
import { probabilitiesSeen, probabilityFindings } from './probabilityFindings';
import type { Failure } from '../../lib/diagnosis/explain';
import { matmulWithUntransposedK } from './signatures';
import { softmaxRange } from './softmaxRange';

export type { Finding };

/** Reading each query and each batch entry apart: what a probe that reads rows or entries one by one needs. */
const APART: readonly PremiseId[] = [...CALLS, 'queries_exchangeable', 'entries_independent'];

/** The premises each probe relies on (premises.ts), checked in this order before it speaks. */
const RELIES_ON = {
  /** Inputs changed so that a suspected mistake cancels out: a right output confirms it, given the calls. */
  undone: CALLS,
  structure: CALLS,
  /** Right entries beside all-zero ones, confirmed by the entries exchanged. */
  firstEntryOnly: CALLS,
  /** NaN and zero rows read one by one, against what each row's own scores predict. */
  nonFinite: APART,
  zeroRows: APART,
  /** The weights read with V = identity are what multiplies V. */
  weights: [...APART, 'linear_in_v'],
} as const satisfies Record<string, readonly PremiseId[]>;

const shapeText = (shape: readonly number[]) => `[${shape.join(', ')}]`;

/** How a structural probe fixes the case: with one batch dim, or with the mask broadcast explicitly. */
async function structure(c: AttentionCase, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  const fixed = (out: Tensor | undefined) => withinTolerance(out, fixture.expected, graded.tolerance);
  // Any mask that broadcasts ([B, 1, n_q, n_k] as much as a 2-D one): given in full, is the output right?
  const full = [...c.batch, c.grid.queries, c.grid.keys];
  if (c.mask && c.mask.shape.join() !== full.join() && fixed(await callAttention(context, { q: c.q, k: c.k, v: c.v, mask: broadcastMask(c) }))) {
    return { id: 'mask_broadcast', evidence: `With the mask broadcast to ${shapeText(full)} before the call, your output is right.` };
  }
  if (c.batch.length > 1) {
    const flat = (t: Tensor) => t.reshape(-1, ...t.shape.slice(-2));
    const mask = c.mask && flat(broadcastMask(c));
    const out = await callAttention(context, { q: flat(c.q), k: flat(c.k), v: flat(c.v), ...(mask && { mask }) });
    if (out && out.size === fixture.expected.size && fixed(out.reshape(...fixture.expected.shape))) {
      return { id: 'batch_dims', evidence: `With the ${c.batch.length} batch dims flattened into one, your output is right.` };
    }
  }
  return undefined;
}

/**
 * Mistakes confirmed by undoing them: the student's own function, called on inputs changed so that
 * the suspected mistake cancels out, gives the expected output. Each changed input is the inverse
 * of one mistake and of no correct code (for a correct function these inputs give another output).
 */
async function undone(c: AttentionCase, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext, recognisedUntransposed: boolean): Promise<Finding | undefined> {
  const right = async (inputs: AttentionInputs) => withinTolerance(await callAttention(context, inputs), fixture.expected, graded.tolerance);
  const mask = c.mask && { mask: c.mask };
  // Q·K where Q·Kᵀ belongs: given Kᵀ, it computes Q·Kᵀ. Tried when its shape error was seen, or
  // when Kᵀ has K's shape (n_k = d_k), where the mistake throws nothing.
  const square = c.grid.keys === c.dK;
  if ((recognisedUntransposed || square) && (await right({ q: c.q, k: c.k.astype('float64').transpose(-2, -1), v: c.v, ...mask }))) {
    // With n_k = d_k, reading K's numbers as [d_k, n_k] is the same computation as Q·K.
    return { id: 'k_not_transposed', evidence: 'Given Kᵀ in place of K, your function returns the right output.', ...(square && { sameAs: ['k_reshaped'] }) };
  }
  if (await right({ q: c.q, k: laidOutTransposed(c.k), v: c.v, ...mask })) {
    return { id: 'k_reshaped', evidence: "Given K's numbers laid out as Kᵀ (same shape), your function returns the right output." };
  }
  if (c.grid.keys > 1 && c.dV > 1 && (await right({ q: c.q, k: c.k, v: laidOutTransposed(c.v), ...mask }))) {
    return { id: 'v_reshaped', evidence: "Given V's numbers laid out as Vᵀ (same shape), your function returns the right output." };
  }
  if (await right({ q: c.q, k: c.v, v: c.k, ...mask })) {
    return { id: 'kv_swapped', evidence: 'Given V in place of K and K in place of V, your function returns the right output.' };
  }
  // K Qᵀ where Q Kᵀ belongs: given K as the queries and Q as the keys, it computes Q Kᵀ.
  if (await right({ q: c.k, k: c.q, v: c.v, ...mask })) {
    return { id: 'qk_swapped', evidence: 'Given K in place of Q and Q in place of K, your function returns the right output.' };
  }
  return undefined;
}

/** Where a NaN comes from: zero scores (no exp can overflow), the fully masked rows, or exp's range. */
async function nanSource(c: AttentionCase, out: Tensor, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  const zeros = await callAttention(context, { q: Tensor.zeros(c.q.shape, 'float64'), k: Tensor.zeros(c.k.shape, 'float64'), v: c.v });
  if (zeros && hasNaN(zeros)) {
    // A NaN scale (Q.shape[-1] is undefined) turns every score into NaN, so every output value: a
    // NaN in some values only has another source, said as seen.
    if (allNaN(zeros) && allNaN(out)) return { id: 'nan_before_softmax' };
    const count = Array.prototype.filter.call(zeros.data, (x: number) => !Number.isFinite(x)).length;
    return { id: 'nan_observed', evidence: `With Q and K all zeros, ${count} of ${zeros.data.length} output values are NaN or infinite.` };
  }
  const masked = c.mask && nanOnlyInFullyMaskedRows(c, out);
  if (masked) return { id: 'fully_masked_nan', evidence: `The NaN is in the queries whose keys are all masked, and only there (the first: ${masked}).` };
  return softmaxRange(c, out, fixture, graded, context);
}

function allNaN({ data }: Values): boolean {
  for (let i = 0; i < data.length; i++) if (!Number.isNaN(data[i])) return false;
  return data.length > 0;
}

/** Where the first fully masked row is, when the NaN rows are exactly the fully masked ones. */
function nanOnlyInFullyMaskedRows(c: AttentionCase, out: Values): string | undefined {
  const allowed = allowedGrid(c);
  const { keys } = c.grid;
  const cols = out.shape[out.shape.length - 1];
  let first = -1;
  for (let row = 0; row * cols < out.data.length; row++) {
    const masked = !allowed.subarray(row * keys, (row + 1) * keys).some((a) => a);
    const nan = Array.prototype.some.call(entry(out, row, cols), (x: number) => !Number.isFinite(x));
    if (masked !== nan) return undefined;
    if (masked && first < 0) first = row;
  }
  return first < 0 ? undefined : whereRow(c, first);
}

/** An all-zero output: with zero scores (Q, K all zeros, no mask) attention is the mean of V, never zeros. */
async function zeros(c: AttentionCase, context: ProbeContext): Promise<Finding> {
  const zeroScores = await callAttention(context, { q: Tensor.zeros(c.q.shape, 'float64'), k: Tensor.zeros(c.k.shape, 'float64'), v: c.v });
  if (zeroScores && isAllZero(zeroScores)) return { id: 'output_zeros', evidence: 'It is zeros even when every score is 0, where the output is the mean of V.' };
  return { id: 'output_zeros' };
}

/**
 * Batch entries that are right beside entries that are all zeros, the first of them right: only it
 * was computed. Seen on the output, then confirmed: given a zero entry first (it and entry 0
 * exchanged), the function gets that entry right and returns zeros for entry 0 in its place. Code
 * whose zeros come from the entry's own data (a masked key, a row it drops) fails the exchange.
 */
async function firstEntryOnly(c: AttentionCase, out: Tensor, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  const { batches, queries } = c.grid;
  if (batches < 2 || out.shape.join() !== fixture.expected.shape.join()) return undefined;
  const per = queries * c.dV;
  const slice = (t: Values, b: number) => ({ data: entry(t, b, per), shape: [per] });
  const right = Array.from({ length: batches }, (_, b) => withinTolerance(slice(out, b), slice(fixture.expected, b), graded.tolerance));
  const zero = right.map((ok, b) => !ok && isAllZero(slice(out, b)));
  if (!right[0] || !right.every((ok, b) => ok || zero[b]) || !zero.some(Boolean)) return undefined;
  const z = zero.indexOf(true);
  const exchanged = (t: Tensor) => {
    const size = t.data.length / batches;
    const data = t.data.slice();
    data.set(t.data.subarray(z * size, (z + 1) * size), 0);
    data.set(t.data.subarray(0, size), z * size);
    return new Tensor(data, t.shape);
  };
  const mask = c.mask && exchanged(broadcastMask(c)).ne(0);
  const probed = await callAttention(context, { q: exchanged(c.q), k: exchanged(c.k), v: exchanged(c.v), ...(mask && { mask }) });
  if (!probed || probed.shape.join() !== out.shape.join()) return undefined;
  if (!withinTolerance(slice(probed, 0), slice(fixture.expected, z), graded.tolerance) || !isAllZero(slice(probed, z))) return undefined;
  return {
    id: 'batch_first_only',
    evidence: `${zero.filter(Boolean).length} of ${batches} batch entries are all zeros, the first being entry ${z}; the others are right. Given entry ${z} first, your function gets it right and returns zeros for entry 0 in its place.`,
  };
}

/** The same numbers in the same order under another shape: a reshape away from right. */
function rightValuesWrongShape(output: Values, expected: Values, graded: GradedCase): boolean {
  if (output.shape.join() === expected.shape.join() || output.data.length !== expected.data.length) return false;
  return withinTolerance({ data: output.data, shape: expected.shape }, expected, graded.tolerance);
}

function hasZeroRowWithKeys(c: AttentionCase, out: Values): boolean {
  const allowed = allowedGrid(c);
  const { keys } = c.grid;
  const cols = out.shape[out.shape.length - 1];
  for (let row = 0; row * cols < out.data.length; row++) {
    if (allowed.subarray(row * keys, (row + 1) * keys).some((a) => a) && isAllZero({ data: entry(out, row, cols), shape: [cols] })) return true;
  }
  return false;
}

type Step = () => Promise<Finding | Finding[] | undefined> | Finding | Finding[] | undefined;

/** Findings for a failing attention case; empty when no probe shows a cause. */
export async function diagnoseAttention(
  graded: GradedCase, fixture: LoadedFixture, outcome: Failure | { kind: 'output'; output: Values }, context: ProbeContext,
): Promise<Finding[]> {
  const c = caseOf(fixture.inputs);
  // An output within tolerance failed a property check only: no probe can fix what is not wrong.
  const valuesWrong = outcome.kind !== 'output' || !withinTolerance(outcome.output, fixture.expected, graded.tolerance);
  if (outcome.kind === 'output' && rightValuesWrongShape(outcome.output, fixture.expected, graded)) {
    return [{ id: 'output_shape', evidence: `Your output has shape ${shapeText(outcome.output.shape)} where ${shapeText(fixture.expected.shape)} is expected; its values in order are right.` }];
  }
  const evidence = attentionEvidence(c, context);
  /** The probe's finding, or the first of its premises that does not hold. */
  const step = async (probe: keyof typeof RELIES_ON, run: Step): Promise<Finding[] | undefined> => {
    const broken = await evidence.premises.broken(RELIES_ON[probe]);
    if (broken) return [broken];
    const found = await run();
    return found === undefined ? undefined : [found].flat();
  };
  const untransposed = outcome.kind !== 'output' && matmulWithUntransposedK(outcome, fixture.inputs, fixture.params);
  const early = (await step('undone', () => (valuesWrong ? undone(c, fixture, graded, context, untransposed) : undefined)))
    ?? (await step('structure', () => (valuesWrong ? structure(c, fixture, graded, context) : undefined)));
  if (early) return early;
  const out = outcome.kind === 'output' ? new Tensor(Float64Array.from(outcome.output.data), outcome.output.shape) : await evidence.output();
  if (!out) return [];
  if (out.shape.join() !== fixture.expected.shape.join()) {
    const probs = fixture.probabilities();
    // The probabilities' shape with their values: a shape alone comes from many mistakes (a d_v read from the wrong dim).
    if (probs && c.dV !== c.grid.keys && withinTolerance(out, probs, graded.tolerance)) {
      return [{ id: 'returns_probabilities', evidence: 'Your output is the expected probabilities, within tolerance.' }];
    }
    return [];
  }
  return (await step('firstEntryOnly', () => firstEntryOnly(c, out, fixture, graded, context)))
    ?? (await readRows(c, out, fixture, graded, context, evidence, step))
    ?? [];
}

/** The rest, read row by row: non-finite rows, zero rows, then the weights. */
async function readRows(
  c: AttentionCase, out: Tensor, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext, evidence: AttentionEvidence,
  step: (probe: keyof typeof RELIES_ON, run: Step) => Promise<Finding[] | undefined>,
): Promise<Finding[] | undefined> {
  if (hasNaN(out)) return step('nonFinite', () => nanSource(c, out, fixture, graded, context));
  if (isAllZero(out)) return step('zeroRows', async () => (await softmaxRange(c, out, fixture, graded, context)) ?? (await zeros(c, context)));
  const range = hasZeroRowWithKeys(c, out) ? await step('zeroRows', () => softmaxRange(c, out, fixture, graded, context)) : undefined;
  if (range) return range;
  return step('weights', async () => {
    const w = await evidence.weights();
    if (typeof w === 'string') return undefined;
    const valuesWrong = !withinTolerance(out, fixture.expected, graded.tolerance);
    return (await probabilityFindings(c, w, out, fixture, graded, context)) ?? (valuesWrong ? probabilitiesSeen(c, w, fixture, graded) : undefined);
  });
}

