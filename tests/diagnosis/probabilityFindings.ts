/**
 * What the weights W (V = identity, weights.ts) show about a failing attention case: the scale the
 * scores were multiplied by, what masked keys get, how rows are normalised, and, when nothing is
 * named, where W differs from the expected probabilities. Every reading here relies on the premises
 * of attentionPremises.ts (each row and entry apart, the output W·V): attention.ts checks them first.
 */
import type { Tolerance } from '../../lib/compare';
import { formatNumber } from '../../lib/format';
import type { LoadedFixture } from '../../lib/model/fixtures';
import type { Tensor } from '../../lib/tensor';
import type { GradedCase } from '../../lib/assignment/cases';
import { allowedGrid, callAttention, whereRow, type AttentionCase } from './attentionCase';
import { hasNaN, withinTolerance, type Finding, type ProbeContext } from '../../lib/diagnosis/probe';
import { columnsSumToOne, fitScale, FITS, rawScores, readMask, type MaskReading } from './readProbabilities';
import { probeProbabilities } from './weights';

/** Rows (queries) whose masked keys get probability, as "query 2, 3 and 5" (batch entries named when there are several). */
function leakingRows(c: AttentionCase, p: ArrayLike<number>, allowed: Uint8Array): string {
  const { batches, queries, keys } = c.grid;
  const rows: string[] = [];
  let count = 0;
  for (let row = 0; row < batches * queries; row++) {
    let leaks = false;
    for (let j = 0; j < keys && !leaks; j++) leaks = !allowed[row * keys + j] && p[row * keys + j] > 0;
    if (!leaks) continue;
    if (count++ < 5) rows.push(whereRow(c, row));
  }
  return count > 5 ? `${rows.join(', ')} and ${count - 5} more` : rows.join(', ');
}

/**
 * What the mask reading claims, confirmed: an inverted mask by the function giving the right output
 * when handed the mask inverted; an ignored mask by it giving the same output with no mask at all.
 * Unconfirmed, what was seen is said (masked keys that get probability, and where), with no cause.
 */
async function maskFinding(c: AttentionCase, reading: MaskReading, p: ArrayLike<number>, out: Tensor, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  if (!c.mask || !(reading.inverted || reading.ignored)) return undefined;
  if (reading.inverted && withinTolerance(await callAttention(context, { q: c.q, k: c.k, v: c.v, mask: c.mask.logicalNot() }), fixture.expected, graded.tolerance)) {
    return { id: 'mask_inverted', evidence: 'Given the mask inverted, your function returns the right output.' };
  }
  if (reading.ignored && withinTolerance(await callAttention(context, { q: c.q, k: c.k, v: c.v }), out, graded.tolerance)) {
    return { id: 'mask_ignored', evidence: 'Without the mask your function returns the same output.' };
  }
  const rows = leakingRows(c, p, allowedGrid(c));
  return rows ? { id: 'mask_leaks', evidence: `Masked keys get probability in ${rows}.` } : undefined;
}

/**
 * The range of the probabilities' row sums, over the queries with a key to attend to, when they
 * are not all 1: an observation, true whatever the code does wrong, so it names no cause.
 */
function unnormalisedRows(c: AttentionCase, p: ArrayLike<number>, allowed: Uint8Array): Finding | undefined {
  const { batches, queries, keys } = c.grid;
  let [min, max, first] = [Infinity, -Infinity, -1];
  for (let row = 0; row < batches * queries; row++) {
    let sum = 0;
    let any = false;
    for (let j = row * keys; j < (row + 1) * keys; j++) [sum, any] = [sum + p[j], any || allowed[j] !== 0];
    if (!any) continue;
    [min, max] = [Math.min(min, sum), Math.max(max, sum)];
    if (first < 0 && Math.abs(sum - 1) > 1e-3) first = row;
  }
  // A row of zeros where keys are allowed is NaN cleared to 0: its own probes say more than a sum.
  if (min < 1e-6 || first < 0 || !Number.isFinite(min) || !Number.isFinite(max)) return undefined;
  return {
    id: 'rows_not_normalised',
    evidence: `With V = identity, your output's rows (the weights of V's rows) sum to between ${formatNumber(min)} and ${formatNumber(max)}, not 1; the first: ${whereRow(c, first)}.`,
  };
}

/**
 * Masked after the softmax, confirmed: without the mask the function's probabilities are the same on
 * the allowed keys (the masked ones were zeroed afterwards). Rows that merely fall short of 1 (a
 * denominator that is too large) do not pass.
 */
async function maskedAfterSoftmax(c: AttentionCase, p: ArrayLike<number>, allowed: Uint8Array, { atol, rtol }: Tolerance, context: ProbeContext): Promise<boolean> {
  const unmasked = await probeProbabilities(context.probe, { q: c.q, k: c.k, v: c.v });
  if (typeof unmasked === 'string' || hasNaN(unmasked) || unmasked.data.length !== p.length) return false;
  for (let i = 0; i < p.length; i++) {
    if (allowed[i] && !(Math.abs(p[i] - unmasked.data[i]) <= atol + rtol * Math.abs(unmasked.data[i]))) return false;
  }
  return true;
}

/**
 * The fitted scale against 1/√d_k, named when the function is right given Q divided by what the
 * scale is off by (so that its scores come out as Q Kᵀ/√d_k): what the weights fit is then the
 * whole of what is wrong. The fit alone also fits code that scales right and errs elsewhere.
 */
async function scaleFinding(scale: number, c: AttentionCase, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  // A degenerate fit (a scale of 0, ∞ or below zero: probabilities with no spread, or clamped
  // scores) confirms nothing about the scale.
  if (!Number.isFinite(scale) || !(scale > 1e-9) || !Number.isFinite(1 / scale)) return undefined;
  const near = (x: number) => Math.abs(scale / x - 1) < 1e-3;
  if (near(1 / Math.sqrt(c.dK))) return undefined;
  const undo = 1 / (scale * Math.sqrt(c.dK));
  if (!withinTolerance(await callAttention(context, { q: c.q.mul(undo), k: c.k, v: c.v, ...(c.mask && { mask: c.mask }) }), fixture.expected, graded.tolerance)) return undefined;
  const evidence = `Your scores are scaled by 1/${(1 / scale).toFixed(2)}; expected 1/√${c.dK} = 1/${Math.sqrt(c.dK).toFixed(2)}. Given Q times ${formatNumber(undo)}, your function is right.`;
  if (near(1)) return { id: 'scale_missing', evidence };
  if (near(1 / c.dK)) return { id: 'scale_by_dk', evidence };
  if (c.dV !== c.dK && near(1 / Math.sqrt(c.dV))) return { id: 'scale_by_sqrt_dv', evidence };
  if (near(1 / Math.floor(Math.sqrt(c.dK))) || near(1 / Math.round(Math.sqrt(c.dK)))) return { id: 'scale_rounded', evidence };
  return { id: 'scale_wrong', evidence };
}

/** What the probabilities (V = identity) show: normalisation, masking and the scale. */
export async function probabilityFindings(c: AttentionCase, w: Tensor, out: Tensor, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding[] | undefined> {
  if (hasNaN(w)) return undefined;
  const p = w.data;
  const allowed = allowedGrid(c);
  const scores = rawScores(c.q.data, c.k.data, c.grid, c.dK);
  // Scores within ±0.01 make every probability 1/n_k to within rounding: neither the scale nor the
  // fill of a masked key shows in them, so nothing is read from them.
  if (scores.every((s) => Math.abs(s / Math.sqrt(c.dK)) <= 1e-2)) return undefined;
  const fit = fitScale(p, scores, allowed, c.grid, 'keys');
  if (fit.misfit > FITS) {
    if (columnsSumToOne(p, allowed, c.grid) && fitScale(p, scores, allowed, c.grid, 'queries').misfit <= FITS) return [{ id: 'softmax_over_queries' }];
    const mask = readMask(p, scores, allowed, c.grid, fit);
    const found = mask.inverted ? await maskFinding(c, { ...mask, ignored: false }, p, out, fixture, graded, context) : undefined;
    if (found) return [found];
    const sums = unnormalisedRows(c, p, allowed);
    return sums && [sums];
  }
  const findings: Finding[] = [];
  const mask = readMask(p, scores, allowed, c.grid, fit);
  const sums = [...mask.fullSums, ...mask.partialSums];
  const masking = await maskFinding(c, mask, p, out, fixture, graded, context);
  const leaking = () => leakingRows(c, p, allowed);
  if (masking) findings.push(masking);
  else if (mask.fill !== undefined && Math.abs(mask.fill) < 1e-3) findings.push({ id: 'mask_multiplied', evidence: `Your masked keys get probability (${leaking()}): their scores are 0 after scaling.` });
  else if (mask.fill !== undefined) findings.push({ id: 'mask_minus_100', evidence: `Your masked keys get probability (${leaking()}): their scores are about ${formatNumber(mask.fill)} after scaling, not −∞.` });
  // With no query partly masked, a −100 fill, a 0 score and a uniform fully masked row all give
  // fully masked queries the mean of V: the output tells them apart from none of the others.
  else if (mask.uniform > 0) findings.push({ id: 'fully_masked_uniform', ...(mask.partialSums.length === 0 && { sameAs: ['mask_minus_100', 'mask_multiplied'] }) });
  else if (c.mask && mask.leaks > 0) findings.push({ id: 'mask_leaks', evidence: `Masked keys get probability in ${leaking()}.` });
  const sumsTo = (target: number, list: number[]) => list.length > 0 && list.every((s) => Math.abs(s - target) <= 1e-5 * Math.max(1, target));
  if (!sumsTo(1, sums) && sumsTo(sums[0], sums)) {
    // Weights of unscaled scores, all divided by √d_k: confirmed when Q divided by √d_k (the scale
    // the scores lack) and V times √d_k (the one the weights carry) undo it.
    const root = Math.sqrt(c.dK);
    if (Math.abs(sums[0] - 1 / root) < 1e-5 && Math.abs(fit.scale - 1) < 1e-3
      && withinTolerance(await callAttention(context, { q: c.q.mul(1 / root), k: c.k, v: c.v.mul(root), ...(c.mask && { mask: c.mask }) }), fixture.expected, graded.tolerance)) {
      return [...findings, { id: 'scale_after_softmax', evidence: `Given Q divided by √${c.dK} and V times √${c.dK}, your function is right.` }];
    }
    return [...findings, { id: 'rows_not_normalised', evidence: `Every query's weights (V = identity) sum to ${formatNumber(sums[0])}, not 1.` }];
  }
  if ((mask.fullSums.length === 0 || sumsTo(1, mask.fullSums)) && mask.partialSums.some((s) => s < 1 - 1e-5) && mask.leaks === 0
    && (await maskedAfterSoftmax(c, p, allowed, graded.tolerance, context))) {
    findings.push({ id: 'mask_after_softmax', evidence: 'Without the mask, your function gives the allowed keys the same probabilities.' });
  }
  if (masking?.id !== 'mask_ignored' && masking?.id !== 'mask_inverted') {
    const scale = await scaleFinding(fit.scale, c, fixture, graded, context);
    if (scale) findings.push(scale);
  }
  // Nothing named, yet the rows do not sum to 1 (and not to one same wrong total): say so.
  const unnormalised = findings.length === 0 ? unnormalisedRows(c, p, allowed) : undefined;
  if (unnormalised) findings.push(unnormalised);
  return findings.length ? findings : undefined;
}

/**
 * No cause shows: what the weights probe saw (V = identity, where attention returns its
 * probabilities) is said instead, right or wrong against the expected ones, and where. It locates
 * the mistake for the student without naming one.
 */
export function probabilitiesSeen(c: AttentionCase, w: Tensor, fixture: LoadedFixture, graded: GradedCase): Finding | undefined {
  const expected = fixture.probabilities();
  if (!expected || hasNaN(w) || w.data.length !== expected.data.length) return undefined;
  const { atol, rtol } = graded.tolerance;
  const { batches, queries, keys } = c.grid;
  let [wrongRows, first, largest] = [0, -1, 0];
  for (let row = 0; row < batches * queries; row++) {
    let wrong = false;
    for (let j = row * keys; j < (row + 1) * keys; j++) {
      const error = Math.abs(w.data[j] - expected.data[j]);
      largest = Math.max(largest, error);
      wrong ||= !(error <= atol + rtol * Math.abs(expected.data[j]));
    }
    if (wrong && first < 0) first = row;
    if (wrong) wrongRows++;
  }
  if (wrongRows === 0) return { id: 'probabilities_right' };
  return { id: 'probabilities_wrong', evidence: `${wrongRows} of ${batches * queries} queries differ, the first ${whereRow(c, first)}; the largest error is ${formatNumber(largest)}.` };
}
