/**
 * The checks that decide a graded case, each with its own message: shape, closeness within
 * atol + rtol·|expected| (both read as float64), rows that sum to 1, masked positions at exactly 0,
 * exact boolean masks and exact integers (indices). They say what was expected, what came, where and how far off.
 */
import { formatIndex, formatNumber, plural, unravelIndex } from './format';
import { formatShape } from './shape';

export interface Tolerance {
  atol: number;
  rtol: number;
}

/** What a check reads: a Tensor, or anything with row-major data and a shape. */
export interface Values {
  readonly data: ArrayLike<number>;
  readonly shape: readonly number[];
}

export interface CheckOutcome {
  check: string;
  passed: boolean;
  message: string;
}

/** 1e-6 rather than 0.000001. */
const formatTolerance = (x: number) => (x !== 0 && x < 1e-3 ? x.toExponential() : String(x));

/** A bound in two significant digits, rounded up so that "≤" stays true: 3.1e-5 for 3.04e-5. */
function formatBound(x: number): string {
  const digits = 10 ** (Math.floor(Math.log10(x)) - 1);
  return formatTolerance(Number((Math.ceil(x / digits - 1e-9) * digits).toPrecision(2)));
}

const pass = (check: string): CheckOutcome => ({ check, passed: true, message: '' });
const fail = (check: string, message: string): CheckOutcome => ({ check, passed: false, message });

export function checkShape(actual: Values, expected: Values): CheckOutcome {
  const same =
    actual.shape.length === expected.shape.length && actual.shape.every((n, i) => n === expected.shape[i]);
  return same
    ? pass('shape')
    : fail('shape', `expected shape ${formatShape(expected.shape)}, got ${formatShape(actual.shape)}`);
}

/**
 * Where a tolerance is widened: each element's bound, asked for only once an element is out of the
 * tolerance itself (most outputs never need it), and what a message calls it.
 */
export interface Widening {
  name: string;
  bounds(): ArrayLike<number>;
}

/**
 * Each element within atol + rtol·|expected|, or within its bound where `widening` gives a wider one.
 * A failure names the bound wherever it was the wider.
 */
export function checkClose(actual: Values, expected: Values, tol: Tolerance, widening?: Widening): CheckOutcome {
  let bad = 0;
  let firstBad = -1;
  let firstBound = 0;
  let widened = false;
  let worst = 0;
  let worstAt = 0;
  let bounds: ArrayLike<number> | undefined;
  for (let i = 0; i < expected.data.length; i++) {
    const want = expected.data[i];
    const got = actual.data[i];
    const err = Math.abs(got - want);
    const own = tol.atol + tol.rtol * Math.abs(want);
    // A NaN error compares false against everything, so test the complement.
    if (!(err <= own)) {
      const bound = widening ? (bounds ??= widening.bounds())[i] : 0;
      if (!(err <= bound)) {
        bad++;
        widened ||= bound > own;
        if (firstBad < 0) [firstBad, firstBound] = [i, bound > own ? bound : 0];
      }
    }
    if (!(err <= worst)) {
      worst = err;
      worstAt = i;
    }
  }
  if (bad === 0) return pass('matches_expected');
  const at = (i: number) => formatIndex(unravelIndex(i, expected.shape));
  const wider = widened ? `, or the ${widening!.name} of this case where wider` : '';
  const beyond = firstBound > 0 ? `, beyond the ${widening!.name} of this case (≤ ${formatBound(firstBound)} here)` : '';
  return fail(
    'matches_expected',
    `${bad} of ${plural(expected.data.length, 'value')} out of tolerance (atol ${formatTolerance(tol.atol)}, rtol ${formatTolerance(tol.rtol)}${wider}); ` +
      `first at ${at(firstBad)}: expected ${formatNumber(expected.data[firstBad])}, got ${formatNumber(actual.data[firstBad])}${beyond}; ` +
      `max abs error ${formatNumber(worst)} at ${at(worstAt)}`,
  );
}

/**
 * Offset into `mask` of the element that broadcasts onto `index` (an index into a tensor whose
 * trailing dims line up with the mask's, as [..., queries, keys] does).
 */
export function broadcastOffset(maskShape: readonly number[], index: readonly number[]): number {
  let offset = 0;
  const lead = index.length - maskShape.length;
  for (let d = 0; d < maskShape.length; d++) {
    offset = offset * maskShape[d] + (maskShape[d] === 1 ? 0 : index[lead + d]);
  }
  return offset;
}

/** The first `n` entries of every row (last dim): the probabilities when V is [identity | more columns]. */
export function leadingColumns(values: Values, n: number): Values {
  const cols = values.shape[values.shape.length - 1];
  if (cols === n) return values;
  const rows = cols === 0 ? 0 : values.data.length / cols;
  const data = new Float64Array(rows * n);
  for (let r = 0; r < rows; r++) for (let c = 0; c < n; c++) data[r * n + c] = values.data[r * cols + c];
  return { data, shape: [...values.shape.slice(0, -1), n] };
}

/** Visits every row (last dim) of `probs` with the mask values that apply to it. */
function forEachRow(
  probs: Values,
  mask: Values | undefined,
  visit: (row: number, allowedAt: (k: number) => boolean) => boolean,
): void {
  const keys = probs.shape[probs.shape.length - 1];
  const rows = keys === 0 ? 0 : probs.data.length / keys;
  for (let row = 0; row < rows; row++) {
    const base = unravelIndex(row * keys, probs.shape);
    const allowedAt = (k: number) => {
      if (!mask) return true;
      base[base.length - 1] = k;
      return mask.data[broadcastOffset(mask.shape, base)] !== 0;
    };
    if (!visit(row, allowedAt)) return;
  }
}

/** Each row sums to 1 over its allowed keys; a row with no allowed key sums to 0. */
export function checkRowsSumToOne(probs: Values, mask: Values | undefined, tol = 1e-6): CheckOutcome {
  const keys = probs.shape[probs.shape.length - 1];
  let message = '';
  forEachRow(probs, mask, (row, allowedAt) => {
    let sum = 0;
    let anyAllowed = false;
    for (let k = 0; k < keys; k++) {
      sum += probs.data[row * keys + k];
      anyAllowed ||= allowedAt(k);
    }
    const target = anyAllowed ? 1 : 0;
    if (Math.abs(sum - target) <= tol) return true;
    const where = formatIndex(unravelIndex(row * keys, probs.shape).slice(0, -1));
    message = anyAllowed
      ? `row ${where} sums to ${formatNumber(sum)}, not 1: the probabilities of a query's allowed keys must sum to 1`
      : `row ${where} has every key masked and must be all zeros, but sums to ${formatNumber(sum)}`;
    return false;
  });
  return message ? fail('rows_sum_to_one', message) : pass('rows_sum_to_one');
}

/** Every position the mask forbids has probability exactly 0 (−100 or −1e4 instead of −∞ leaks). */
export function checkMaskedAreZero(probs: Values, mask: Values): CheckOutcome {
  const keys = probs.shape[probs.shape.length - 1];
  let leaks = 0;
  let first = '';
  forEachRow(probs, mask, (row, allowedAt) => {
    for (let k = 0; k < keys; k++) {
      const p = probs.data[row * keys + k];
      if (allowedAt(k) || p === 0) continue;
      if (leaks++ === 0) {
        first = `${formatIndex(unravelIndex(row * keys + k, probs.shape))} got ${formatNumber(p)}`;
      }
    }
    return true;
  });
  if (leaks === 0) return pass('masked_are_zero');
  return fail(
    'masked_are_zero',
    `${plural(leaks, 'masked position')} got probability instead of exactly 0; first: ${first}. ` +
      'Masked scores must become exactly 0 after the softmax (use −∞, or zero them afterwards).',
  );
}

/**
 * Every row (last dim) of `values` whose mask row allows no key is exactly 0: a query whose keys are
 * all masked outputs zeros and weighs every key 0, never NaN nor a uniform average. The rows line
 * up with the mask's queries (the dims before the last, aligned from the right), whatever the
 * last dim holds (keys for weights, features for an output).
 */
export function checkMaskedRowsZero(values: Values, mask: Values): CheckOutcome {
  const cols = values.shape[values.shape.length - 1];
  const rows = cols === 0 ? 0 : values.data.length / cols;
  const keys = mask.shape[mask.shape.length - 1];
  let bad = 0;
  let first = '';
  for (let row = 0; row < rows; row++) {
    const index = unravelIndex(row * cols, values.shape);
    let allowed = false;
    for (let k = 0; k < keys && !allowed; k++) {
      index[index.length - 1] = k;
      allowed = mask.data[broadcastOffset(mask.shape, index)] !== 0;
    }
    if (allowed) continue;
    let at = row * cols;
    while (at < (row + 1) * cols && values.data[at] === 0) at++;
    if (at === (row + 1) * cols) continue;
    if (bad++ === 0) first = `${formatIndex(unravelIndex(at, values.shape))} is ${formatNumber(values.data[at])}`;
  }
  if (bad === 0) return pass('masked_rows_zero');
  return fail(
    'masked_rows_zero',
    `${plural(bad, 'row')} whose keys are all masked ${bad === 1 ? 'is' : 'are'} not all zeros; first: ${first}. ` +
      'A query with no key to attend to must output zeros (set its NaN weights to 0 after the softmax).',
  );
}

/**
 * Integers (indices) compared exactly: no tolerance makes a neighbour's index right, and a mask's
 * reading (zero or not) would take index 3 for index 2.
 */
export function checkEqual(actual: Values, expected: Values): CheckOutcome {
  let bad = 0;
  let firstBad = -1;
  for (let i = 0; i < expected.data.length; i++) {
    if (actual.data[i] === expected.data[i]) continue;
    if (bad++ === 0) firstBad = i;
  }
  if (bad === 0) return pass('matches_expected');
  return fail(
    'matches_expected',
    `${bad} of ${plural(expected.data.length, 'value')} differ (compared exactly); ` +
      `first at ${formatIndex(unravelIndex(firstBad, expected.shape))}: expected ${formatNumber(expected.data[firstBad])}, got ${formatNumber(actual.data[firstBad])}`,
  );
}

/** Boolean masks compared entry by entry, with the query/key reading of a wrong entry. */
export function checkMaskEqual(actual: Values, expected: Values): CheckOutcome {
  for (let i = 0; i < expected.data.length; i++) {
    const want = expected.data[i] !== 0;
    if ((actual.data[i] !== 0) === want) continue;
    const [query, key] = unravelIndex(i, expected.shape).slice(-2);
    const reason = want
      ? `query ${query} must be able to see key ${key}`
      : `query ${query} must not see key ${key}, a future position`;
    return fail(
      'matches_expected',
      `entry ${formatIndex([query, key])} is ${want ? 0 : 1} but should be ${want ? 1 : 0}: ${reason}`,
    );
  }
  return pass('matches_expected');
}
