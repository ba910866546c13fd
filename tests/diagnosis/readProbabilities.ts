/**
 * Reads a submission's attention probabilities (recovered by a probe with V = identity) for what
 * they show: how rows are normalised, what masked keys get, and the scale the scores were
 * multiplied by, fitted from log-probability differences against the raw scores Q Kᵀ. This is
 * evidence about the student's own numbers; it never computes attention itself.
 */

/** [batches, queries, keys], batch dims flattened. */
export interface Grid {
  batches: number;
  queries: number;
  keys: number;
}

export interface ScaleFit {
  /** The fitted multiplier of the raw scores; NaN when no pair of keys could be compared. */
  scale: number;
  /** How well log P follows scale·scores: the largest misfit of a log-probability difference. */
  misfit: number;
}

/** Below this a probability is too close to underflow (float32 denormals) to compare logs. */
const SMALLEST = 1e-9;
/** A log-probability misfit under this is float32 rounding, not another formula. */
export const FITS = 1e-3;

/**
 * Fits log P_a − log P_ref = scale · (S_a − S_ref) within each group of entries that one softmax
 * normalises: a query's keys (`along = 'keys'`), or a key's queries. Only allowed entries count.
 */
export function fitScale(p: ArrayLike<number>, scores: ArrayLike<number>, allowed: Uint8Array, grid: Grid, along: 'keys' | 'queries'): ScaleFit {
  const { batches, queries, keys } = grid;
  const [groups, size] = along === 'keys' ? [queries, keys] : [keys, queries];
  const at = (b: number, g: number, m: number) => (along === 'keys' ? (b * queries + g) * keys + m : (b * queries + m) * keys + g);
  const pairs: [number, number][] = [];
  for (let b = 0; b < batches; b++) {
    for (let g = 0; g < groups; g++) {
      let ref = -1;
      for (let m = 0; m < size; m++) {
        const i = at(b, g, m);
        if (allowed[i] && p[i] >= SMALLEST && (ref < 0 || p[i] > p[ref])) ref = i;
      }
      if (ref < 0) continue;
      for (let m = 0; m < size; m++) {
        const i = at(b, g, m);
        if (i !== ref && allowed[i] && p[i] >= SMALLEST) pairs.push([scores[i] - scores[ref], Math.log(p[i]) - Math.log(p[ref])]);
      }
    }
  }
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of pairs) [sxy, sxx] = [sxy + x * y, sxx + x * x];
  const scale = sxx > 0 ? sxy / sxx : NaN;
  const misfit = pairs.reduce((worst, [x, y]) => Math.max(worst, Math.abs(y - scale * x)), 0);
  // Two pairs at least: through one point any scale fits.
  return { scale, misfit: Number.isNaN(scale) || pairs.length < 2 ? Infinity : misfit };
}

/** Whether every key's allowed probabilities, summed over the queries, make 1: a softmax over the queries. */
export function columnsSumToOne(p: ArrayLike<number>, allowed: Uint8Array, { batches, queries, keys }: Grid): boolean {
  let columns = 0;
  for (let b = 0; b < batches; b++) {
    for (let j = 0; j < keys; j++) {
      let [sum, any] = [0, false];
      for (let i = 0; i < queries; i++) {
        const at = (b * queries + i) * keys + j;
        if (allowed[at]) [sum, any] = [sum + p[at], true];
      }
      if (!any) continue;
      if (Math.abs(sum - 1) > 1e-5) return false;
      columns++;
    }
  }
  return columns > 0;
}

/** What the masked keys of rows that also have allowed keys get, and what fully masked rows get. */
export interface MaskReading {
  /** Rows with allowed and masked keys whose allowed keys got (almost) nothing and masked keys the rest. */
  inverted: boolean;
  /** Masked entries, in rows with an allowed key, with probability > 0. */
  leaks: number;
  /** Every leaking entry fits the scale fit as if it were allowed: the mask is not applied. */
  ignored: boolean;
  /** The scaled score a finite fill gives the leaking entries (−100 …), when they all agree on one. */
  fill?: number;
  /** Fully masked rows: how many, and how many are uniform (1/keys each) or zero. */
  fullyMasked: number;
  uniform: number;
  zero: number;
  /** Sums of the allowed probabilities of rows with masked keys, and of rows with none. */
  partialSums: number[];
  fullSums: number[];
}

export function readMask(p: ArrayLike<number>, scores: ArrayLike<number>, allowed: Uint8Array, grid: Grid, fit: ScaleFit): MaskReading {
  const { batches, queries, keys } = grid;
  const reading: MaskReading = { inverted: false, leaks: 0, ignored: true, fullyMasked: 0, uniform: 0, zero: 0, partialSums: [], fullSums: [] };
  let mixedRows = 0;
  let invertedRows = 0;
  const fills: number[] = [];
  for (let row = 0; row < batches * queries; row++) {
    const base = row * keys;
    let ref = -1;
    let [allowedMass, maskedMass, count] = [0, 0, 0];
    for (let j = 0; j < keys; j++) {
      if (allowed[base + j]) {
        count++;
        allowedMass += p[base + j];
        if (ref < 0 || p[base + j] > p[base + ref]) ref = j;
      } else maskedMass += p[base + j];
    }
    if (count === 0) {
      reading.fullyMasked++;
      if (maskedMass === 0) reading.zero++;
      else if (Array.from({ length: keys }, (_, j) => p[base + j]).every((x) => Math.abs(x - 1 / keys) < 1e-6)) reading.uniform++;
      continue;
    }
    (count === keys ? reading.fullSums : reading.partialSums).push(allowedMass);
    if (count === keys) continue;
    mixedRows++;
    if (allowedMass < 1e-6 && maskedMass > 0.5) invertedRows++;
    for (let j = 0; j < keys; j++) {
      const x = p[base + j];
      if (allowed[base + j] || !(x > 0) || !(p[base + ref] >= SMALLEST)) continue;
      reading.leaks++;
      const logRatio = Math.log(x) - Math.log(p[base + ref]);
      if (Math.abs(logRatio - fit.scale * (scores[base + j] - scores[base + ref])) > FITS) reading.ignored = false;
      fills.push(logRatio + fit.scale * scores[base + ref]);
    }
  }
  reading.inverted = mixedRows > 0 && invertedRows === mixedRows;
  reading.ignored &&= reading.leaks > 0;
  if (fills.length && Math.max(...fills) - Math.min(...fills) <= 1e-2 * Math.abs(fills[0]) + FITS) {
    reading.fill = fills.reduce((a, b) => a + b, 0) / fills.length;
  }
  return reading;
}

/** Raw scores Q Kᵀ per batch entry, [batches, queries, keys]; `kAsRows` false reads K's data as [dK, keys] (a reshape, not a transpose). */
export function rawScores(q: ArrayLike<number>, k: ArrayLike<number>, grid: Grid, dK: number, kAsRows = true): Float64Array {
  const { batches, queries, keys } = grid;
  const out = new Float64Array(batches * queries * keys);
  for (let b = 0; b < batches; b++) {
    for (let i = 0; i < queries; i++) {
      for (let j = 0; j < keys; j++) {
        let dot = 0;
        for (let c = 0; c < dK; c++) {
          const kAt = kAsRows ? (b * keys + j) * dK + c : b * keys * dK + c * keys + j;
          dot += q[(b * queries + i) * dK + c] * k[kAt];
        }
        out[(b * queries + i) * keys + j] = dot;
      }
    }
  }
  return out;
}
