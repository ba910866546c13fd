/**
 * Diagnoses a failing scaledDotProductAttention case by calling the student's function again on
 * inputs derived from the case: the same inputs with one batch dim or an explicitly broadcast mask
 * (structure), small scores or zero Q and K (where a NaN comes from), batch entries in reverse
 * (mixing), and V = identity (the probabilities themselves, read by readProbabilities.ts). Each
 * finding rests on what a probe showed; when none does, there is no finding.
 */
import type { Tolerance, Values } from '../compare';
import type { LoadedFixture } from '../grading/fixtures';
import { formatNumber } from '../format';
import { Tensor } from '../tensor';
import type { GradedCase } from '../../tests/cases';
import { hasNaN, isAllZero, probeOutput, withinTolerance, type Probe, type ProbeContext } from './probe';
import { columnsSumToOne, fitScale, FITS, rawScores, readMask, type Grid, type MaskReading } from './readProbabilities';
import { matmulWithUntransposedK, type Failure } from './signatures';

/** A mistake the evidence shows: its id in catalogue.ts, and what the probes measured, if anything. */
export interface Finding {
  id: string;
  evidence?: string;
  /** Other mistakes that compute exactly the same on this case (named with '|'; the message is id's). */
  sameAs?: string[];
}

interface Case {
  q: Tensor;
  k: Tensor;
  v: Tensor;
  mask?: Tensor;
  grid: Grid;
  dK: number;
  dV: number;
  batch: number[];
}

function caseOf(inputs: Record<string, Tensor>): Case {
  const { q, k, v, mask } = inputs;
  const batch = q.shape.slice(0, -2);
  const [queries, dK] = q.shape.slice(-2);
  const grid = { batches: batch.reduce((a, b) => a * b, 1), queries, keys: k.shape[k.ndim - 2] };
  return { q, k, v, mask, grid, dK, dV: v.shape[v.ndim - 1], batch };
}

const call = (context: ProbeContext, inputs: Record<string, Tensor>) =>
  probeOutput(context, 'scaled_dot_product_attention', { params: {}, inputs });

/** The mask as a [batches, queries, keys] array of 0/1, whatever its broadcast shape. */
function allowedGrid(c: Case): Uint8Array {
  const out = new Uint8Array(c.grid.batches * c.grid.queries * c.grid.keys).fill(1);
  if (!c.mask) return out;
  return Uint8Array.from(broadcastMask(c).data);
}

function broadcastMask(c: Case): Tensor {
  return Tensor.ones([...c.batch, c.grid.queries, c.grid.keys], 'bool').logicalAnd(c.mask!);
}

/** V = identity [n_k, n_k] padded with zero columns to d_v (when d_v ≥ n_k), so the scale's d_v is the case's. */
function identityValues(c: Case): Tensor {
  const { batches, keys } = c.grid;
  const cols = Math.max(keys, c.dV);
  const data = new Float64Array(batches * keys * cols);
  for (let b = 0; b < batches; b++) for (let j = 0; j < keys; j++) data[(b * keys + j) * cols + j] = 1;
  return new Tensor(data, [...c.batch, keys, cols]);
}

/** The first n_k columns of each row. */
function columns(out: Values, n: number): Float64Array {
  const cols = out.shape[out.shape.length - 1];
  const rows = out.data.length / cols;
  return Float64Array.from({ length: rows * n }, (_, i) => out.data[Math.floor(i / n) * cols + (i % n)]);
}

/** Entry b of a [...batch, rows, cols] tensor, flat. */
function entry(t: Values, b: number, per: number): ArrayLike<number> {
  // A view of a typed array (a tensor's data always is): a generic slice reads it element by element.
  const { data } = t;
  return ArrayBuffer.isView(data) ? (data as Float64Array).subarray(b * per, (b + 1) * per) : Array.prototype.slice.call(data, b * per, (b + 1) * per);
}

/** How a structural probe fixes the case: with one batch dim, or with the mask broadcast explicitly. */
async function structure(c: Case, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  const fixed = (out: Tensor | undefined) => withinTolerance(out, fixture.expected, graded.tolerance);
  // Any mask that broadcasts ([B, 1, n_q, n_k] as much as a 2-D one): given in full, is the output right?
  const full = [...c.batch, c.grid.queries, c.grid.keys];
  if (c.mask && c.mask.shape.join() !== full.join() && fixed(await call(context, { q: c.q, k: c.k, v: c.v, mask: broadcastMask(c) }))) {
    return { id: 'mask_broadcast', evidence: `With the mask broadcast to ${shapeText(full)} before the call, your output is right.` };
  }
  if (c.batch.length > 1) {
    const flat = (t: Tensor) => t.reshape(-1, ...t.shape.slice(-2));
    const mask = c.mask && flat(broadcastMask(c));
    const out = await call(context, { q: flat(c.q), k: flat(c.k), v: flat(c.v), ...(mask && { mask }) });
    if (out && out.size === fixture.expected.size && fixed(out.reshape(...fixture.expected.shape))) {
      return { id: 'batch_dims', evidence: `With the ${c.batch.length} batch dims flattened into one, your output is right.` };
    }
  }
  return undefined;
}

const shapeText = (shape: readonly number[]) => `[${shape.join(', ')}]`;

/** K with its last two dims swapped: [..., d_k, n_k]. */
const transposedK = (c: Case) => c.k.astype('float64').transpose(-2, -1);

/** K's shape, holding Kᵀ's numbers in row-major order: what code that reads K as [d_k, n_k] needs to see K. */
function kReadAsTransposed(c: Case): Tensor {
  const t = transposedK(c);
  return new Tensor(Float64Array.from(t.reshape(...c.k.shape).data), c.k.shape);
}

/**
 * Mistakes confirmed by undoing them: the student's own function, called on inputs changed so that
 * the suspected mistake cancels out, gives the expected output. Each changed input is the inverse
 * of one mistake and of no correct code (for a correct function these inputs give another output).
 */
async function undone(c: Case, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext, recognisedUntransposed: boolean): Promise<Finding | undefined> {
  const right = async (inputs: Record<string, Tensor>) => withinTolerance(await call(context, inputs), fixture.expected, graded.tolerance);
  const mask = c.mask && { mask: c.mask };
  // Q·K where Q·Kᵀ belongs: given Kᵀ, it computes Q·Kᵀ. Tried when its shape error was seen, or
  // when Kᵀ has K's shape (n_k = d_k), where the mistake throws nothing.
  const square = c.grid.keys === c.dK;
  if ((recognisedUntransposed || square) && (await right({ q: c.q, k: transposedK(c), v: c.v, ...mask }))) {
    // With n_k = d_k, reading K's numbers as [d_k, n_k] is the same computation as Q·K.
    return { id: 'k_not_transposed', evidence: 'Given Kᵀ in place of K, your function returns the right output.', ...(square && { sameAs: ['k_reshaped'] }) };
  }
  if (await right({ q: c.q, k: kReadAsTransposed(c), v: c.v, ...mask })) {
    return { id: 'k_reshaped', evidence: "Given K's numbers laid out as Kᵀ (same shape), your function returns the right output." };
  }
  if (await right({ q: c.q, k: c.v, v: c.k, ...mask })) {
    return { id: 'kv_swapped', evidence: 'Given V in place of K and K in place of V, your function returns the right output.' };
  }
  return undefined;
}

/** Where a NaN comes from: zero scores (so no exp can overflow), one query alone, or scores scaled down. */
async function nanSource(c: Case, out: Tensor, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  const zeros = await call(context, { q: Tensor.zeros(c.q.shape, 'float64'), k: Tensor.zeros(c.k.shape, 'float64'), v: c.v });
  if (zeros && hasNaN(zeros)) {
    // A NaN scale (Q.shape[-1] is undefined) turns every score into NaN, so every output value: a
    // NaN in some values only has another source, said as seen.
    if (allNaN(zeros) && allNaN(out)) return { id: 'nan_before_softmax' };
    const count = Array.prototype.filter.call(zeros.data, (x: number) => !Number.isFinite(x)).length;
    return { id: 'nan_observed', evidence: `With Q and K all zeros, ${count} of ${zeros.data.length} output values are NaN or infinite.` };
  }
  if (c.mask && nanOnlyInFullyMaskedRows(c, out)) return { id: 'fully_masked_nan' };
  const row = firstRow(out, (values) => Array.prototype.some.call(values, (x: number) => !Number.isFinite(x)));
  return (row !== undefined && (await aloneRight(c, row, 'NaN', fixture, graded, context))) || overflow(c, context);
}

/** The first row (query) of the output, over every batch entry, that `bad` says is wrong. */
function firstRow(out: Values, bad: (values: ArrayLike<number>) => boolean): number | undefined {
  const cols = out.shape[out.shape.length - 1];
  for (let row = 0; row * cols < out.data.length; row++) if (bad(entry(out, row, cols))) return row;
  return undefined;
}

/**
 * A query that goes wrong beside the others but is right alone: its own Q row, with its batch
 * entry's K, V and mask row, is called by itself. Right alone and NaN or zeros beside the others,
 * it was undone by the other queries' scores: the softmax took its max over all of them. The
 * property confirmed is the counterfactual (alone, the student's own function gets it right).
 */
async function aloneRight(c: Case, row: number, got: string, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  const { queries, keys } = c.grid;
  if (queries < 2) return undefined;
  const b = Math.floor(row / queries);
  const query = row % queries;
  const slice = (t: Tensor, rows: number, from: number, count: number) => {
    const cols = t.shape[t.ndim - 1];
    const data = Float64Array.from(entry(t, b, rows * cols)).subarray(from * cols, (from + count) * cols);
    return new Tensor(Float64Array.from(data), [1, count, cols]);
  };
  const mask = c.mask && new Tensor(allowedGrid(c).slice(row * keys, (row + 1) * keys), [1, 1, keys]);
  const out = await call(context, { q: slice(c.q, queries, query, 1), k: slice(c.k, keys, 0, keys), v: slice(c.v, keys, 0, keys), ...(mask && { mask }) });
  const dV = c.dV;
  const expected = new Tensor(Float64Array.from(entry(fixture.expected, row, dV)), [1, 1, dV]);
  if (!out || !withinTolerance(out, expected, graded.tolerance)) return undefined;
  const where = c.grid.batches > 1 ? `query ${query} of batch entry ${b}` : `query ${query}`;
  return { id: 'attention_global_max', evidence: `Given alone, ${where} gets the right output; beside the other queries it gets ${got}.` };
}

function allNaN({ data }: Values): boolean {
  for (let i = 0; i < data.length; i++) if (!Number.isNaN(data[i])) return false;
  return data.length > 0;
}

function nanOnlyInFullyMaskedRows(c: Case, out: Values): boolean {
  const allowed = allowedGrid(c);
  const { keys } = c.grid;
  const cols = out.shape[out.shape.length - 1];
  let fullyMasked = 0;
  for (let row = 0; row * cols < out.data.length; row++) {
    const masked = !allowed.subarray(row * keys, (row + 1) * keys).some((a) => a);
    const nan = Array.prototype.some.call(entry(out, row, cols), (x: number) => !Number.isFinite(x));
    if (masked !== nan) return false;
    if (masked) fullyMasked++;
  }
  return fullyMasked > 0;
}

/**
 * Scores large enough to overflow exp, and with Q scaled down the function is a sound softmax over
 * the keys: finite, and its probabilities (read with V = identity) fit softmax(scores / √d_k) row
 * by row. Finite alone confirms nothing: a softmax over the wrong dim is finite there too.
 */
async function overflow(c: Case, context: ProbeContext): Promise<Finding | undefined> {
  const scores = rawScores(c.q.data, c.k.data, c.grid, c.dK);
  const largest = Math.max(...Array.from(scores, Math.abs)) / Math.sqrt(c.dK);
  if (!(largest > 88)) return undefined;
  const q = c.q.astype('float64').mul(8 / largest);
  const small = await call(context, { q, k: c.k, v: c.v, ...(c.mask && { mask: c.mask }) });
  if (!small || hasNaN(small) || isAllZero(small)) return undefined;
  const probed = await probeProbabilities(context.probe, { q, k: c.k, v: c.v, ...(c.mask && { mask: c.mask }) });
  if (typeof probed === 'string' || hasNaN(probed)) return undefined;
  const fit = fitScale(probed.data, rawScores(q.data, c.k.data, c.grid, c.dK), allowedGrid(c), c.grid, 'keys');
  if (fit.misfit > FITS || Math.abs(fit.scale * Math.sqrt(c.dK) - 1) > 1e-3) return undefined;
  return { id: 'unstable_softmax', evidence: `With the scores scaled down to at most 8 your function is right; at ${formatNumber(largest)} it does not give finite values.` };
}

/** An all-zero output: with zero scores (Q, K all zeros, no mask) attention is the mean of V, never zeros. */
async function zeros(c: Case, context: ProbeContext): Promise<Finding> {
  const zeroScores = await call(context, { q: Tensor.zeros(c.q.shape, 'float64'), k: Tensor.zeros(c.k.shape, 'float64'), v: c.v });
  if (zeroScores && isAllZero(zeroScores)) return { id: 'output_zeros', evidence: 'It is zeros even when every score is 0, where the output is the mean of V.' };
  return { id: 'output_zeros' };
}

/** Batch entries that are right, wrong and zero, or that depend on another entry. */
async function batchEntries(c: Case, out: Tensor, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  const { batches, queries } = c.grid;
  if (batches < 2 || out.shape.join() !== fixture.expected.shape.join()) return undefined;
  const per = queries * out.shape[out.shape.length - 1];
  const slice = (t: Values, b: number) => ({ data: entry(t, b, per), shape: [per] });
  const right = Array.from({ length: batches }, (_, b) => withinTolerance(slice(out, b), slice(fixture.expected, b), graded.tolerance));
  if (right.every(Boolean) || !right.some(Boolean)) return reversedBatch(c, out, graded, context);
  const zero = right.map((ok, b) => !ok && isAllZero(slice(out, b)));
  if (right[0] && right.every((ok, b) => ok || zero[b])) {
    return { id: 'batch_first_only', evidence: `${zero.filter(Boolean).length} of ${batches} batch entries are all zeros; the others are right.` };
  }
  return reversedBatch(c, out, graded, context);
}

/** Attention treats batch entries independently: reversing their order must reverse the output's. */
async function reversedBatch(c: Case, out: Tensor, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  const { batches } = c.grid;
  if (batches < 2) return undefined;
  // Each tensor keeps its own dtype: a float32 solution given float64 entries rounds differently,
  // and that difference alone once passed for entries that mix.
  const reverse = (t: Tensor) => {
    const per = t.data.length / batches;
    const data = t.data instanceof Float32Array ? new Float32Array(t.data.length) : new Float64Array(t.data.length);
    for (let b = 0; b < batches; b++) data.set(entry(t, batches - 1 - b, per), b * per);
    return new Tensor(data, t.shape);
  };
  const mask = c.mask && reverse(broadcastMask(c)).ne(0);
  const probed = await call(context, { q: reverse(c.q), k: reverse(c.k), v: reverse(c.v), ...(mask && { mask }) });
  if (!probed || hasNaN(probed) || hasNaN(out) || withinTolerance(reverse(probed), out, graded.tolerance)) return undefined;
  return { id: 'batch_mixed', evidence: 'With the batch entries given in reverse order, your output is not the same entries reversed.' };
}

const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 299)}…` : text);

/**
 * The student's attention probabilities [...batch, queries, keys]: their function's output with
 * V = identity (Q, K and the mask of the case), NaN kept; a sentence when it gave none.
 */
export async function probeProbabilities(probe: Probe, inputs: Record<string, Tensor>): Promise<Tensor | string> {
  const c = caseOf(inputs);
  const answer = await probe('scaled_dot_product_attention', { params: {}, inputs: { q: c.q, k: c.k, v: identityValues(c), ...(c.mask && { mask: c.mask }) } });
  if (answer.kind === 'threw') return `with V = identity the function threw ${cut(`${answer.name}: ${answer.message}`)}`;
  if (answer.kind === 'none') return `with V = identity ${answer.why}`;
  const out = answer.output;
  const want = [...c.batch, c.grid.queries];
  if (out.ndim !== want.length + 1 || want.some((n, i) => out.shape[i] !== n) || out.shape[out.ndim - 1] < c.grid.keys) {
    return `with V = identity the output should start with the probabilities [${[...want, c.grid.keys].join(', ')}], but it had shape [${out.shape.join(', ')}]`;
  }
  return new Tensor(columns(out, c.grid.keys), [...want, c.grid.keys]);
}

/** Rows (queries) whose masked keys get probability, as "query 2, 3 and 5" (batch entries named when there are several). */
function leakingRows(p: ArrayLike<number>, allowed: Uint8Array, { batches, queries, keys }: Grid): string {
  const rows: string[] = [];
  let count = 0;
  for (let row = 0; row < batches * queries; row++) {
    let leaks = false;
    for (let j = 0; j < keys && !leaks; j++) leaks = !allowed[row * keys + j] && p[row * keys + j] > 0;
    if (!leaks) continue;
    if (count++ < 5) rows.push(batches > 1 ? `query ${row % queries} of batch entry ${Math.floor(row / queries)}` : `query ${row % queries}`);
  }
  return count > 5 ? `${rows.join(', ')} and ${count - 5} more` : rows.join(', ');
}

/**
 * What the mask reading claims, confirmed: an inverted mask by the function giving the right output
 * when handed the mask inverted; an ignored mask by it giving the same output with no mask at all.
 * Unconfirmed, what was seen is said (masked keys that get probability, and where), with no cause.
 */
async function maskFinding(c: Case, reading: MaskReading, p: ArrayLike<number>, out: Tensor, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  if (!c.mask || !(reading.inverted || reading.ignored)) return undefined;
  if (reading.inverted && withinTolerance(await call(context, { q: c.q, k: c.k, v: c.v, mask: c.mask.logicalNot() }), fixture.expected, graded.tolerance)) {
    return { id: 'mask_inverted', evidence: 'Given the mask inverted, your function returns the right output.' };
  }
  if (reading.ignored && withinTolerance(await call(context, { q: c.q, k: c.k, v: c.v }), out, graded.tolerance)) {
    return { id: 'mask_ignored', evidence: 'Without the mask your function returns the same output.' };
  }
  const rows = leakingRows(p, allowedGrid(c), c.grid);
  return rows ? { id: 'mask_leaks', evidence: `Masked keys get probability in ${rows}.` } : undefined;
}

/**
 * The range of the probabilities' row sums, over the queries with a key to attend to, when they
 * are not all 1: an observation, true whatever the code does wrong, so it names no cause.
 */
function unnormalisedRows(p: ArrayLike<number>, allowed: Uint8Array, grid: Grid): Finding | undefined {
  let [min, max] = [Infinity, -Infinity];
  for (let row = 0; row < grid.batches * grid.queries; row++) {
    let sum = 0;
    let any = false;
    for (let j = row * grid.keys; j < (row + 1) * grid.keys; j++) [sum, any] = [sum + p[j], any || allowed[j] !== 0];
    if (any) [min, max] = [Math.min(min, sum), Math.max(max, sum)];
  }
  // A row of zeros where keys are allowed is NaN cleared to 0: its own probes (an overflow, a
  // maximum over every query) say more than a sum.
  if (min < 1e-6) return undefined;
  if (!Number.isFinite(min) || !Number.isFinite(max) || (Math.abs(min - 1) <= 1e-3 && Math.abs(max - 1) <= 1e-3)) return undefined;
  return { id: 'rows_not_normalised', evidence: `With V = identity, your output's rows (the probabilities) sum to between ${formatNumber(min)} and ${formatNumber(max)}, not 1.` };
}

/**
 * Masked after the softmax, confirmed: without the mask the function's probabilities are the same on
 * the allowed keys (the masked ones were zeroed afterwards). Rows that merely fall short of 1 (a
 * denominator that is too large) do not pass.
 */
async function maskedAfterSoftmax(c: Case, p: ArrayLike<number>, allowed: Uint8Array, { atol, rtol }: Tolerance, context: ProbeContext): Promise<boolean> {
  const unmasked = await probeProbabilities(context.probe, { q: c.q, k: c.k, v: c.v });
  if (typeof unmasked === 'string' || hasNaN(unmasked) || unmasked.data.length !== p.length) return false;
  for (let i = 0; i < p.length; i++) {
    if (allowed[i] && !(Math.abs(p[i] - unmasked.data[i]) <= atol + rtol * Math.abs(unmasked.data[i]))) return false;
  }
  return true;
}

/** What the probabilities (V = identity) show: normalisation, masking and the scale. */
async function probabilities(c: Case, out: Tensor, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding[] | undefined> {
  const probed = await probeProbabilities(context.probe, { q: c.q, k: c.k, v: c.v, ...(c.mask && { mask: c.mask }) });
  if (typeof probed === 'string' || hasNaN(probed)) return undefined;
  const p = probed.data;
  const allowed = allowedGrid(c);
  const scores = rawScores(c.q.data, c.k.data, c.grid, c.dK);
  // Scores within ±0.01 make every probability 1/n_k to within rounding: neither the scale nor the
  // fill of a masked key shows in them, so nothing is read from them.
  if (scores.every((s) => Math.abs(s / Math.sqrt(c.dK)) <= 1e-2)) return undefined;
  const fit = fitScale(p, scores, allowed, c.grid, 'keys');
  if (fit.misfit > FITS) {
    if (fitScale(p, rawScores(c.q.data, c.k.data, c.grid, c.dK, false), allowed, c.grid, 'keys').misfit <= FITS) return [{ id: 'k_reshaped' }];
    if (columnsSumToOne(p, allowed, c.grid) && fitScale(p, scores, allowed, c.grid, 'queries').misfit <= FITS) return [{ id: 'softmax_over_queries' }];
    const mask = readMask(p, scores, allowed, c.grid, fit);
    const found = mask.inverted ? await maskFinding(c, { ...mask, ignored: false }, p, out, fixture, graded, context) : undefined;
    if (found) return [found];
    const sums = unnormalisedRows(p, allowed, c.grid);
    return sums && [sums];
  }
  const findings: Finding[] = [];
  const mask = readMask(p, scores, allowed, c.grid, fit);
  const sums = [...mask.fullSums, ...mask.partialSums];
  const expectedScale = 1 / Math.sqrt(c.dK);
  const masking = await maskFinding(c, mask, p, out, fixture, graded, context);
  if (masking) findings.push(masking);
  else if (mask.fill !== undefined && Math.abs(mask.fill) < 1e-3) findings.push({ id: 'mask_multiplied', evidence: 'Your masked keys get probability: their scores are 0 after scaling.' });
  else if (mask.fill !== undefined) findings.push({ id: 'mask_minus_100', evidence: `Your masked keys get probability: their scores are about ${formatNumber(mask.fill)} after scaling, not −∞.` });
  // With no query partly masked, a −100 fill, a 0 score and a uniform fully masked row all give
  // fully masked queries the mean of V: the output tells them apart from none of the others.
  else if (mask.uniform > 0) findings.push({ id: 'fully_masked_uniform', ...(mask.partialSums.length === 0 && { sameAs: ['mask_minus_100', 'mask_multiplied'] }) });
  else if (c.mask && mask.leaks > 0) findings.push({ id: 'mask_leaks', evidence: `Masked keys get probability in ${leakingRows(p, allowed, c.grid)}.` });
  const sumsTo = (target: number, list: number[]) => list.length > 0 && list.every((s) => Math.abs(s - target) <= 1e-5 * Math.max(1, target));
  if (!sumsTo(1, sums) && sumsTo(sums[0], sums)) {
    if (Math.abs(sums[0] - expectedScale) < 1e-5 && Math.abs(fit.scale - 1) < 1e-3) return [...findings, { id: 'scale_after_softmax' }];
    return [...findings, { id: 'rows_not_normalised', evidence: `Every query's probabilities sum to ${formatNumber(sums[0])}, not 1.` }];
  }
  if ((mask.fullSums.length === 0 || sumsTo(1, mask.fullSums)) && mask.partialSums.some((s) => s < 1 - 1e-5) && mask.leaks === 0
    && (await maskedAfterSoftmax(c, p, allowed, graded.tolerance, context))) {
    findings.push({ id: 'mask_after_softmax', evidence: 'Without the mask, your function gives the allowed keys the same probabilities.' });
  }
  if (masking?.id !== 'mask_ignored' && masking?.id !== 'mask_inverted') {
    const scale = scaleFinding(fit.scale, c);
    if (scale) findings.push(scale);
  }
  // Nothing named, yet the rows do not sum to 1 (and not to one same wrong total): say so.
  const unnormalised = findings.length === 0 ? unnormalisedRows(p, allowed, c.grid) : undefined;
  if (unnormalised) findings.push(unnormalised);
  return findings.length ? findings : undefined;
}

/** The fitted scale against 1/√d_k, named when it is a known wrong one. */
function scaleFinding(scale: number, c: Case): Finding | undefined {
  // A degenerate fit (a scale of 0, ∞ or below zero: probabilities with no spread, or clamped
  // scores) confirms nothing about the scale.
  if (!Number.isFinite(scale) || !(scale > 1e-9) || !Number.isFinite(1 / scale)) return undefined;
  const near = (x: number) => Math.abs(scale / x - 1) < 1e-3;
  if (near(1 / Math.sqrt(c.dK))) return undefined;
  const evidence = `Your scores are scaled by 1/${(1 / scale).toFixed(2)}; expected 1/√${c.dK} = 1/${Math.sqrt(c.dK).toFixed(2)}.`;
  if (near(1)) return { id: 'scale_missing', evidence };
  if (near(1 / c.dK)) return { id: 'scale_by_dk', evidence };
  if (c.dV !== c.dK && near(1 / Math.sqrt(Math.max(c.dV, c.grid.keys)))) return { id: 'scale_by_sqrt_dv', evidence };
  if (near(1 / Math.floor(Math.sqrt(c.dK))) || near(1 / Math.round(Math.sqrt(c.dK)))) return { id: 'scale_rounded', evidence };
  return { id: 'scale_wrong', evidence };
}

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
  const reversed = valuesWrong ? await undone(c, fixture, graded, context, outcome.kind !== 'output' && matmulWithUntransposedK(outcome, fixture.inputs, fixture.params)) : undefined;
  if (reversed) return [reversed];
  const structural = valuesWrong ? await structure(c, fixture, graded, context) : undefined;
  if (structural) return [structural];
  const out = outcome.kind === 'output' ? new Tensor(Float64Array.from(outcome.output.data), outcome.output.shape)
    : await call(context, { ...fixture.inputs });
  if (!out) return [];
  const expectedShape = fixture.expected.shape;
  if (out.shape.join() !== expectedShape.join()) {
    const probs = fixture.probabilities();
    if (probs && out.shape.join() === probs.shape.join() && c.dV !== c.grid.keys) return [{ id: 'returns_probabilities' }];
    return [];
  }
  if (hasNaN(out)) {
    const source = await nanSource(c, out, fixture, graded, context);
    return source ? [source] : [];
  }
  if (isAllZero(out)) return [(await overflow(c, context)) ?? (await zeros(c, context))];
  const batch = await batchEntries(c, out, fixture, graded, context);
  if (batch) return [batch];
  const found = await probabilities(c, out, fixture, graded, context);
  if (found) return found;
  // NaN cleared to 0 (after an overflow, or a max taken over every query) leaves rows of zeros
  // where a query has keys to attend to.
  const row = zeroRowWithKeys(c, out);
  const cleared = row === undefined ? undefined : (await aloneRight(c, row, 'zeros', fixture, graded, context)) ?? (await overflow(c, context));
  if (cleared) return [cleared];
  const seen = valuesWrong ? await probabilitiesSeen(c, fixture, graded, context) : undefined;
  return seen ? [seen] : [];
}

/**
 * No cause shows: what the probabilities probe saw (V = identity, where attention returns its
 * probabilities) is said instead, right or wrong against the expected ones, and where. It locates
 * the mistake for the student without naming one.
 */
async function probabilitiesSeen(c: Case, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  const expected = fixture.probabilities();
  if (!expected) return undefined;
  const probed = await probeProbabilities(context.probe, { q: c.q, k: c.k, v: c.v, ...(c.mask && { mask: c.mask }) });
  if (typeof probed === 'string' || hasNaN(probed) || probed.data.length !== expected.data.length) return undefined;
  const { atol, rtol } = graded.tolerance;
  const { batches, queries, keys } = c.grid;
  let [wrongRows, first, largest] = [0, -1, 0];
  for (let row = 0; row < batches * queries; row++) {
    let wrong = false;
    for (let j = row * keys; j < (row + 1) * keys; j++) {
      const error = Math.abs(probed.data[j] - expected.data[j]);
      largest = Math.max(largest, error);
      wrong ||= !(error <= atol + rtol * Math.abs(expected.data[j]));
    }
    if (wrong && first < 0) first = row;
    if (wrong) wrongRows++;
  }
  if (wrongRows === 0) return { id: 'probabilities_right' };
  const where = batches > 1 ? `query ${first % queries} of batch entry ${Math.floor(first / queries)}` : `query ${first}`;
  return { id: 'probabilities_wrong', evidence: `${wrongRows} of ${batches * queries} queries differ, the first ${where}; the largest error is ${formatNumber(largest)}.` };
}

/** The same numbers in the same order under another shape: a reshape away from right. */
function rightValuesWrongShape(output: Values, expected: Values, graded: GradedCase): boolean {
  if (output.shape.join() === expected.shape.join() || output.data.length !== expected.data.length) return false;
  return withinTolerance({ data: output.data, shape: expected.shape }, expected, graded.tolerance);
}

function zeroRowWithKeys(c: Case, out: Values): number | undefined {
  const allowed = allowedGrid(c);
  const { keys } = c.grid;
  const cols = out.shape[out.shape.length - 1];
  for (let row = 0; row * cols < out.data.length; row++) {
    if (allowed.subarray(row * keys, (row + 1) * keys).some((a) => a) && isAllZero({ data: entry(out, row, cols), shape: [cols] })) return row;
  }
  return undefined;
}
