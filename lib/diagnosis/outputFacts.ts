/**
 * What a wrong output shows against the expected one, with no probe and no catalogue: the whole
 * output times one factor, its last two dims transposed, whole entries, rows or columns that hold
 * what others should (a permutation: values computed right and written in the wrong place), or
 * wrong rows that are each the expected row times a factor of its own (0 for a row of zeros).
 * Each is a measured fact about the graded call's output, said with where it shows, and no cause:
 * many different codes give each of them. Rows are the slices along the last dim, entries the
 * slices along the last two.
 */
import type { Tolerance, Values, Widening } from '../compare';
import { formatNumber, plural, unravelIndex } from '../format';

/** A fact's id and words: an observation (explain.ts Cause), no cause named. */
export interface OutputFact {
  id: string;
  message: string;
  observation: true;
}

/** What is said of an output: the fact's id and its words with where it shows (explain.ts Diagnosis). */
export interface FactSeen {
  mistake: string;
  message: string;
}

const fact = (id: string, message: string): OutputFact => ({ id, message, observation: true });

export const OUTPUT_SCALED = fact('output_scaled', 'Your output is the expected output times one factor, every value of it within tolerance');
export const OUTPUT_TRANSPOSED = fact('output_transposed', 'Your output is the expected output with its last two dims exchanged (each [..., i, j] holds what [..., j, i] should)');
export const ENTRIES_PERMUTED = fact('entries_permuted', 'Your output holds the expected entries (slices along the last two dims) in another order: each wrong one is right where another belongs');
export const ROWS_PERMUTED = fact('rows_permuted', 'Your output holds the expected rows (slices along the last dim) in another order: each wrong row is right where another row belongs');
export const COLUMNS_PERMUTED = fact('columns_permuted', 'Your output holds the expected columns (slices along every dim but the last) in another order: each wrong column is right where another belongs');
export const ROWS_SCALED = fact('rows_scaled', 'Each wrong row of your output (a slice along the last dim) is the expected row times a factor of its own; the other rows are right');
export const ROWS_ZERO = fact('rows_zero', 'Some rows of your output (slices along the last dim) are all zeros where the expected ones are not; the other rows are right');

/** The harness's facts about an output, for reports (lib/report/causes.ts) as for the words. */
export const OUTPUT_FACTS: readonly OutputFact[] = [OUTPUT_SCALED, OUTPUT_TRANSPOSED, ENTRIES_PERMUTED, ROWS_PERMUTED, COLUMNS_PERMUTED, ROWS_SCALED, ROWS_ZERO];

/** Past this many rows or columns, matching each wrong one against every other costs more than the fact is worth. */
const MOST = 4096;
/** At most this many places named in a fact. */
const SHOWN = 3;

/** How an actual value is held against an expected element: the check's own rule (lib/compare.ts checkClose), or exactly. */
type Close = (actual: number, expectedAt: number, target?: number) => boolean;

function closeness(expected: Values, tol: Tolerance | undefined, widening: Widening | undefined): Close {
  let bounds: ArrayLike<number> | undefined;
  return (actual, at, target = expected.data[at]) => {
    if (!tol) return actual === target;
    const err = Math.abs(actual - target);
    if (err <= tol.atol + tol.rtol * Math.abs(target)) return true;
    // A bound belongs to the element's own value: it is no measure of a scaled target.
    return target === expected.data[at] && widening !== undefined && err <= ((bounds ??= widening.bounds())[at] ?? -1);
  };
}

interface Layout {
  rows: number;
  cols: number;
  /** Rows per entry (the last two dims); 0 when the output has fewer than three dims. */
  perEntry: number;
}

const layoutOf = (shape: readonly number[]): Layout => {
  const cols = shape[shape.length - 1] ?? 1;
  const rows = cols === 0 ? 0 : shape.reduce((a, b) => a * b, 1) / cols;
  return { rows, cols, perEntry: shape.length >= 3 ? shape[shape.length - 2] : 0 };
};

/** Row `a` of the output against row `b` of the expected output (each of `cols` values). */
function rowMatches(out: Values, close: Close, a: number, b: number, cols: number): boolean {
  for (let c = 0; c < cols; c++) if (!close(out.data[a * cols + c], b * cols + c)) return false;
  return true;
}

function isConstant(data: ArrayLike<number>, from: number, count: number, step = 1): boolean {
  for (let k = 1; k < count; k++) if (data[from + k * step] !== data[from]) return false;
  return true;
}

/** "[0, 3, :]": a slice of the output through its leading index `at`, `open` dims left whole. */
const place = (at: readonly number[], open: number) => `[${[...at, ...Array<string>(open).fill(':')].join(', ')}]`;

/** "[0, 3, :] holds what [1, 0, :] should, [1, 0, :] what [0, 3, :] should (and 4 more)". */
function moves(pairs: [string, string][]): string {
  const shown = pairs.slice(0, SHOWN).map(([from, to], i) => (i === 0 ? `${from} holds what ${to} should` : `${from} what ${to} should`));
  return `${shown.join(', ')}${pairs.length > SHOWN ? ` (and ${pairs.length - SHOWN} more)` : ''}`;
}

/** The one factor c with output = c · expected everywhere (not 0, not 1), or undefined. */
function uniformFactor(out: Values, expected: Values, close: Close): number | undefined {
  let [sxy, sxx] = [0, 0];
  for (let i = 0; i < expected.data.length; i++) [sxy, sxx] = [sxy + out.data[i] * expected.data[i], sxx + expected.data[i] ** 2];
  const c = sxx > 0 ? sxy / sxx : NaN;
  if (!Number.isFinite(c) || Math.abs(c) < 1e-6 || Math.abs(c - 1) < 1e-6) return undefined;
  for (let i = 0; i < expected.data.length; i++) if (!close(out.data[i], i, c * expected.data[i])) return undefined;
  return c;
}

function transposed(out: Values, expected: Values, close: Close): boolean {
  const [n, m] = expected.shape.slice(-2);
  if (expected.shape.length < 2 || n !== m || n < 2) return false;
  for (let e = 0; e * n * n < expected.data.length; e++) {
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (!close(out.data[e * n * n + i * n + j], e * n * n + j * n + i)) return false;
  }
  return true;
}

/**
 * For each wrong row, another expected row it equals, or undefined when one has none. A
 * permutation: each source row is itself a wrong row (its own value went elsewhere) and serves one
 * row only; so an output whose rows all repeat one expected row, or that has more rows of zeros
 * (a fully masked query's) than the expected output, is none.
 */
function rowSources(out: Values, expected: Values, close: Close, wrong: number[], { rows, cols }: Layout): Map<number, number> | undefined {
  if (rows > MOST || cols < 2) return undefined;
  const movable = new Set(wrong);
  const sources = new Map<number, number>();
  for (const r of wrong) {
    const found = wrong.find((s) => s !== r && movable.has(s) && rowMatches(out, close, r, s, cols));
    if (found === undefined) return undefined;
    movable.delete(found);
    sources.set(r, found);
  }
  return sources;
}

/** Whole entries moved: every wrong row's source is the same row of one other entry, the same for all its entry's rows. */
function entryMoves(sources: Map<number, number>, layout: Layout, wrong: number[]): [number, number][] | undefined {
  const { perEntry } = layout;
  if (perEntry === 0 || layout.rows / perEntry < 2) return undefined;
  const entryOf = new Map<number, number>();
  for (const r of wrong) {
    const [e, s] = [Math.floor(r / perEntry), sources.get(r)!];
    if (s % perEntry !== r % perEntry) return undefined;
    const from = Math.floor(s / perEntry);
    if ((entryOf.get(e) ?? from) !== from) return undefined;
    entryOf.set(e, from);
  }
  return [...entryOf.entries()];
}

/** Each wrong column's source column over every row, itself a wrong column serving this one only; undefined when one has none. */
function columnSources(out: Values, close: Close, { rows, cols }: Layout): [number, number][] | undefined {
  if (cols > MOST || cols < 2 || rows < 2) return undefined;
  const columnMatches = (a: number, b: number) => {
    for (let r = 0; r < rows; r++) if (!close(out.data[r * cols + a], r * cols + b)) return false;
    return true;
  };
  const wrong = Array.from({ length: cols }, (_, c) => c).filter((c) => !columnMatches(c, c));
  const movable = new Set(wrong);
  const found: [number, number][] = [];
  for (const c of wrong) {
    const source = wrong.find((s) => s !== c && movable.has(s) && columnMatches(c, s));
    if (source === undefined) return undefined;
    movable.delete(source);
    found.push([c, source]);
  }
  return found.length ? found : undefined;
}

/** Each wrong row's own factor (0 for a row of zeros), or undefined when a wrong row is no multiple of its expected row. */
function rowFactors(out: Values, expected: Values, close: Close, wrong: number[], { cols }: Layout): Map<number, number> | undefined {
  if (cols < 2) return undefined;
  const factors = new Map<number, number>();
  for (const r of wrong) {
    let [sxy, sxx] = [0, 0];
    for (let c = r * cols; c < (r + 1) * cols; c++) [sxy, sxx] = [sxy + out.data[c] * expected.data[c], sxx + expected.data[c] ** 2];
    if (!(sxx > 0) || isConstant(expected.data, r * cols, cols)) return undefined;
    const f = sxy / sxx;
    if (!Number.isFinite(f)) return undefined;
    for (let c = r * cols; c < (r + 1) * cols; c++) if (!close(out.data[c], c, f * expected.data[c])) return undefined;
    factors.set(r, Math.abs(f) < 1e-12 ? 0 : f);
  }
  return factors;
}

/**
 * The fact a wrong output shows against the expected one, or undefined when it shows none of them.
 * `tol` undefined: compared exactly. `widening`: the case's error bound, as the check reads it.
 */
export function outputFacts(out: Values, expected: Values, tol: Tolerance | undefined, widening?: Widening): FactSeen | undefined {
  if (out.shape.join() !== expected.shape.join() || expected.data.length === 0) return undefined;
  const close = closeness(expected, tol, widening);
  const layout = layoutOf(expected.shape);
  const wrong: number[] = [];
  for (let r = 0; r < layout.rows; r++) if (!rowMatches(out, close, r, r, layout.cols)) wrong.push(r);
  if (wrong.length === 0) return undefined;
  const say = (f: OutputFact, seen: string): FactSeen => ({ mistake: f.id, message: `${f.message}: ${seen}.` });
  const rowName = (r: number) => place(unravelIndex(r, expected.shape.slice(0, -1)), 1);

  const factor = tol && uniformFactor(out, expected, close);
  if (factor !== undefined) return say(OUTPUT_SCALED, `${formatNumber(factor)}${Math.abs(factor) < 1 ? ` (1/${formatNumber(1 / factor)})` : ''}`);
  if (transposed(out, expected, close)) return say(OUTPUT_TRANSPOSED, `the first wrong value is at ${rowName(wrong[0])}`);
  const sources = rowSources(out, expected, close, wrong, layout);
  if (sources) {
    const entries = entryMoves(sources, layout, wrong);
    const entryName = (e: number) => place(unravelIndex(e, expected.shape.slice(0, -2)), 2);
    if (entries) return say(ENTRIES_PERMUTED, moves(entries.map(([e, from]) => [entryName(e), entryName(from)])));
    return say(ROWS_PERMUTED, moves(wrong.map((r) => [rowName(r), rowName(sources.get(r)!)])));
  }
  const columns = columnSources(out, close, layout);
  if (columns) {
    const columnName = (c: number) => `[..., ${c}]`;
    return say(COLUMNS_PERMUTED, moves(columns.map(([c, from]) => [columnName(c), columnName(from)])));
  }
  const factors = tol && rowFactors(out, expected, close, wrong, layout);
  if (!factors) return undefined;
  const zero = wrong.filter((r) => factors.get(r) === 0);
  const of = `${wrong.length} of ${plural(layout.rows, 'row')}`;
  if (zero.length === wrong.length) return say(ROWS_ZERO, `${of}, the first ${rowName(zero[0])}`);
  const shown = wrong.slice(0, SHOWN).map((r) => `${rowName(r)} ×${formatNumber(factors.get(r)!)}`).join(', ');
  return say(ROWS_SCALED, `${of}: ${shown}${wrong.length > SHOWN ? ` (and ${wrong.length - SHOWN} more)` : ''}${zero.length ? `; ${zero.length} of them all zeros` : ''}`);
}
