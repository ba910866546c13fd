/**
 * Softmax mistakes about the number subtracted before exp: none (exp overflows on large scores),
 * one that starts at 0 or above a row's scores (every exp of a far-negative row underflows to 0),
 * or the largest of all the scores (a row far below it underflows). Each breaks exactly the rows
 * that exp's range predicts, in float64 or float32, and nothing else; so the claim needs both:
 * - the rows that came out NaN, infinite or zero (with keys to attend to) are exactly the rows
 *   one of these predicts from the case's scores, an exp beyond the range: NaN or Infinity seen
 *   for an overflow, an exact 0 row for an underflow;
 * - with every query's scores shifted so that its largest is 0, and again so that it is 30, the
 *   function is right. The shift is K plus one vector u per batch entry, solved so that q_i·u
 *   moves row i's largest raw score there: attention cannot see it (softmax ignores a constant
 *   added to a row), these mistakes can. The second shift tells them from code that is right only
 *   where a row's largest score is 0: a denominator summed over the unshifted exps is each row's
 *   right one times e^max, wrong by e^30 there, where none of these mistakes reaches exp's edge.
 */
import { formatNumber } from '../../lib/format';
import type { LoadedFixture } from '../../lib/model/fixtures';
import { Tensor } from '../../lib/tensor';
import type { GradedCase } from '../../lib/assignment/cases';
import { allowedGrid, callAttention, entry, whereRow, type AttentionCase } from './attentionCase';
import { withinTolerance, type Finding, type ProbeContext } from '../../lib/diagnosis/probe';
import { rawScores } from './readProbabilities';

interface Range {
  /** exp(x) is Infinity above this, and 0 below `under`. */
  over: number;
  under: number;
}
const RANGES: readonly Range[] = [
  { over: Math.log(Number.MAX_VALUE), under: -745.13 },
  // float64's exp rounded into a Float32Array, as the tensor module's float32 exp and fround loops are.
  { over: Math.log(3.4028234663852886e38), under: Math.log(2 ** -150) },
];

interface Row {
  max: number;
  /**
   * How many keys it may attend to. log Σ exp(s) over them lies between max and max + log(count):
   * enough to tell where the sum overflows but for a row within log(count) of the edge, which the
   * shifted-keys probe settles. (No exp of the scores here: the handout computes no attention.)
   */
  count: number;
}

type Hypothesis = 'unstable_softmax' | 'softmax_underflow' | 'attention_global_max';

/** Each row's largest scaled score and how many keys it may attend to; undefined for a row with none. */
function rowsOf(c: AttentionCase): (Row | undefined)[] {
  const { batches, queries, keys } = c.grid;
  const scores = rawScores(c.q.data, c.k.data, c.grid, c.dK);
  const allowed = allowedGrid(c);
  const scale = 1 / Math.sqrt(c.dK);
  return Array.from({ length: batches * queries }, (_, row) => {
    let max = -Infinity;
    for (let j = row * keys; j < (row + 1) * keys; j++) if (allowed[j]) max = Math.max(max, scores[j] * scale);
    if (max === -Infinity) return undefined;
    let count = 0;
    for (let j = row * keys; j < (row + 1) * keys; j++) if (allowed[j]) count++;
    return { max, count };
  });
}

/** Whether the sum of a row's exps passes the largest float: undefined when its bounds straddle the edge. */
function sumOverflows(row: Row, r: Range): boolean | undefined {
  if (row.max > r.over) return true;
  return row.max + Math.log(row.count) <= r.over ? false : undefined;
}

/**
 * The rows each hypothesis breaks in a range, as a predicate on a row (its entry's largest score
 * given); undefined where the range cannot say.
 */
const BREAKS: Record<Hypothesis, (row: Row, top: number, range: Range) => boolean | undefined> = {
  unstable_softmax: (row, _, r) => (row.max < r.under ? true : sumOverflows(row, r)),
  softmax_underflow: (row, _, r) => row.max < r.under,
  attention_global_max: (row, top, r) => row.max - top < r.under,
};

/** A row NaN, infinite, or zero although it has keys to attend to. */
function brokenRows(out: Tensor, rows: (Row | undefined)[], cols: number): boolean[] {
  return rows.map((row, r) => {
    if (!row) return false;
    const values = entry(out, r, cols);
    let [finite, zero] = [true, true];
    for (let i = 0; i < values.length; i++) [finite, zero] = [finite && Number.isFinite(values[i]), zero && values[i] === 0];
    return !finite || zero;
  });
}

/** The hypotheses whose broken rows, in some range, are exactly the observed ones. */
function fitting(c: AttentionCase, rows: (Row | undefined)[], observed: boolean[]): Hypothesis[] {
  const { queries } = c.grid;
  const entryTop = (r: number) => Math.max(...rows.slice(r - (r % queries), r - (r % queries) + queries).map((row) => row?.max ?? -Infinity));
  const allTop = Math.max(...rows.map((row) => row?.max ?? -Infinity));
  return (Object.keys(BREAKS) as Hypothesis[]).filter((h) => RANGES.some((range) => [entryTop, () => allTop].some((top) => {
    const predicted = rows.map((row, r) => row && BREAKS[h](row, top(r), range));
    // Rows the range cannot say of match either way, but at least one broken row must be one it predicts.
    return predicted.every((breaks, r) => !rows[r] || breaks === undefined || breaks === observed[r])
      && predicted.some((breaks, r) => breaks === true && observed[r]);
  })));
}

/** u per batch entry with q_i·u = targets[i] for each query of the entry (least norm), or undefined when Q has no such u. */
function solveShift(q: ArrayLike<number>, targets: number[], queries: number, dK: number): Float64Array | undefined {
  const gram = Array.from({ length: queries }, (_, i) => Array.from({ length: queries + 1 }, (__, j) => {
    if (j === queries) return targets[i];
    let dot = 0;
    for (let k = 0; k < dK; k++) dot += q[i * dK + k] * q[j * dK + k];
    return dot;
  }));
  for (let col = 0; col < queries; col++) {
    const pivot = gram.slice(col).reduce((best, row, i) => (Math.abs(row[col]) > Math.abs(gram[best][col]) ? col + i : best), col);
    if (!(Math.abs(gram[pivot][col]) > 1e-9)) return undefined;
    [gram[col], gram[pivot]] = [gram[pivot], gram[col]];
    for (let r = 0; r < queries; r++) {
      if (r === col) continue;
      const f = gram[r][col] / gram[col][col];
      for (let k = col; k <= queries; k++) gram[r][k] -= f * gram[col][k];
    }
  }
  const lambda = gram.map((row, i) => row[queries] / row[i]);
  const u = new Float64Array(dK);
  for (let i = 0; i < queries; i++) for (let k = 0; k < dK; k++) u[k] += lambda[i] * q[i * dK + k];
  for (let i = 0; i < queries; i++) {
    let dot = 0;
    for (let k = 0; k < dK; k++) dot += q[i * dK + k] * u[k];
    if (!(Math.abs(dot - targets[i]) <= 1e-6 * Math.max(1, Math.abs(targets[i])))) return undefined;
  }
  return u;
}

/** The largest scaled scores the shifts move each query's to: exp of neither overflows, nor of the scores below it underflow sooner. */
const SHIFTED_TO = [0, 30];

/** K plus, in each batch entry, the vector that moves each query's largest scaled score to `to`. */
function shiftedKeys(c: AttentionCase, rows: (Row | undefined)[], to: number): Tensor | undefined {
  const { batches, queries, keys } = c.grid;
  if (c.k.size !== batches * keys * c.dK) return undefined;
  const k = Float64Array.from(c.k.data);
  for (let b = 0; b < batches; b++) {
    const targets = rows.slice(b * queries, (b + 1) * queries).map((row) => (row ? (to - row.max) * Math.sqrt(c.dK) : 0));
    const u = solveShift(entry(c.q, b, queries * c.dK), targets, queries, c.dK);
    if (!u) return undefined;
    for (let j = 0; j < keys; j++) for (let d = 0; d < c.dK; d++) k[(b * keys + j) * c.dK + d] += u[d];
  }
  return new Tensor(k, c.k.shape);
}

const CONDITION: Record<Hypothesis, string> = {
  unstable_softmax: 'whose scores overflow exp (its sum passes the largest float) or all underflow it',
  softmax_underflow: "whose scores are all far below 0, so that exp of each minus 0 underflows",
  attention_global_max: 'whose largest score is far below the largest of all, so that exp of each minus that underflows',
};

/** A finding when the broken rows are an exp range's and both shifts make the function right. */
export async function softmaxRange(c: AttentionCase, out: Tensor, fixture: LoadedFixture, graded: GradedCase, context: ProbeContext): Promise<Finding | undefined> {
  if (out.shape.join() !== fixture.expected.shape.join()) return undefined;
  const rows = rowsOf(c);
  const observed = brokenRows(out, rows, c.dV);
  const first = observed.indexOf(true);
  if (first < 0) return undefined;
  const fits = fitting(c, rows, observed);
  if (fits.length === 0) return undefined;
  for (const to of SHIFTED_TO) {
    const k = shiftedKeys(c, rows, to);
    if (!k || !withinTolerance(await callAttention(context, { q: c.q, k, v: c.v, ...(c.mask && { mask: c.mask }) }), fixture.expected, graded.tolerance)) return undefined;
  }
  const values = Array.from(entry(out, first, c.dV));
  const got = values.some(Number.isNaN) ? 'NaN' : values.some((x) => !Number.isFinite(x)) ? 'Infinity' : 'zeros';
  const count = observed.filter(Boolean).length;
  return {
    id: fits[0],
    ...(fits.length > 1 && { sameAs: fits.slice(1) }),
    evidence: `${count} ${count === 1 ? 'query gets' : 'queries get'} ${got}, exactly those ${CONDITION[fits[0]]} (the first: ${whereRow(c, first)}, ` +
      `largest score ${formatNumber(rows[first]!.max)}); with each query's scores shifted so that its largest is 0, and again 30 (K plus one vector, which changes no probability), your function is right.`,
  };
}
