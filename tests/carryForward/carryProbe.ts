/**
 * What --carry-forward asks the student's scaledDotProductAttention (carryForward.ts), and what its
 * answer must show before multi-head points are carried on it.
 *
 * The case's heads are not asked alone: they are one of 16 entries that no child can tell apart,
 * made from the case's x and projections by redrawing, independently for queries, keys, values and
 * x, part of what made them (for each head a random subset of a projection's rows, of the same
 * scale; a random subset of x's positions), in every combination. Each entry is a call of the shape
 * the student's multi-head attention makes, in a random order, in a fresh child that has seen no
 * multi-head call; a child that recognised the case's heads could answer them differently from the
 * rest, and it cannot. What it answers the case's heads is then compared with what it answers the
 * entries that differ from them in one thing:
 * - the answer is the same when asked again in another fresh child, in another order;
 * - it is not degenerate: not all zeros, not constant, not an input copied or rescaled;
 * - it changes with the queries, with the keys, with the values and with x;
 * - it mixes features as attention does: redrawing some features of the queries, keys or values
 *   changes other columns of the output too (an elementwise sum of inputs changes only those);
 * - it mixes positions as attention does: redrawing x at some positions changes the output at
 *   others (a function of each position alone changes only those).
 * A multi-head output right on such an answer was made by the head split, a per-head computation
 * that attends across features and positions, the merge and the output projection: the multi-head
 * function's own work.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { Tolerance } from '../../lib/compare';
import { gaussian } from '../../lib/random';
import { Tensor } from '../../lib/tensor';

/** The four things the entries redraw, in the order of their index bits. */
export const FACTORS = ['q', 'k', 'v', 'x'] as const;
export type Factor = (typeof FACTORS)[number];
/** The entry made of the case's own x and projections. */
export const REAL = 0;
export const ENTRIES = 1 << FACTORS.length;

export interface ProbeInputs {
  q: Tensor;
  k: Tensor;
  v: Tensor;
  mask?: Tensor;
}

export interface ProbeGrid {
  /** Entry i takes the redrawn version of factor f where bit f of i is set; entry REAL is the case's. */
  entries: ProbeInputs[];
  /** For q, k and v: per head, the features (output rows of the projection) that were redrawn. */
  features: Record<'q' | 'k' | 'v', number[][]>;
  /** Per batch entry of x (flattened leading dims), the positions that were redrawn. */
  positions: number[][];
  /** [...batch, heads, seq, dHead] */
  shape: number[];
}

function rms(data: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < data.length; i++) sum += data[i] * data[i];
  return Math.sqrt(sum / Math.max(1, data.length));
}

/** A random subset of 0..n-1, neither empty nor whole (n ≥ 2). */
function someOf(n: number): number[] {
  for (;;) {
    const picked = Array.from({ length: n }, (_, i) => i).filter(() => randomInt(2) === 1);
    if (picked.length > 0 && picked.length < n) return picked;
  }
}

/** Draws like the tensor's own: normal, of its scale, rounded as it is stored. */
function drawer(like: Tensor): () => number {
  const scale = rms(like.data);
  const values = gaussian(4096, randomBytes(16).toString('hex'));
  let at = 0;
  const round = like.dtype === 'float32' ? Math.fround : (v: number) => v;
  return () => {
    if (at === values.length) {
      values.set(gaussian(values.length, randomBytes(16).toString('hex')));
      at = 0;
    }
    return round(values[at++] * scale);
  };
}

/** A projection [dModel, dModel] with, per head, some of its output rows redrawn. */
function redrawFeatures(w: Tensor, heads: number): { w: Tensor; features: number[][] } {
  const [dModel] = w.shape;
  const dHead = dModel / heads;
  const data = Float64Array.from(w.data);
  const draw = drawer(w);
  const features = Array.from({ length: heads }, (_, h) => {
    const picked = dHead > 1 ? someOf(dHead) : [0];
    for (const f of picked) for (let c = 0; c < dModel; c++) data[(h * dHead + f) * dModel + c] = draw();
    return picked;
  });
  return { w: new Tensor(data, w.shape), features };
}

/** Whether some position outside `positions` may attend to one inside (always, with no mask). */
function reachesOthers(positions: readonly number[], seq: number, mask?: Tensor): boolean {
  const inside = new Set(positions);
  for (let i = 0; i < seq; i++) {
    if (inside.has(i)) continue;
    for (const j of positions) if (!mask || mask.data[i * seq + j]) return true;
  }
  return false;
}

/** x [...batch, seq, dModel] with, per batch entry, some positions redrawn (each one that others attend to). */
function redrawPositions(x: Tensor, mask?: Tensor): { x: Tensor; positions: number[][] } {
  const [seq, dModel] = x.shape.slice(-2);
  const batches = x.size / (seq * dModel);
  const data = Float64Array.from(x.data);
  const draw = drawer(x);
  const positions = Array.from({ length: batches }, (_, b) => {
    let picked = someOf(seq);
    while (!reachesOthers(picked, seq, mask)) picked = someOf(seq);
    for (const p of picked) for (let c = 0; c < dModel; c++) data[(b * seq + p) * dModel + c] = draw();
    return picked;
  });
  return { x: new Tensor(data, x.shape), positions };
}

/** x Wᵀ, split into [...batch, heads, seq, dHead], in float64. */
export function splitHeads(x: Tensor, w: Tensor, numHeads: number): Tensor {
  const [seq, dModel] = x.shape.slice(-2);
  const batch = x.shape.slice(0, -2);
  return x.astype('float64').matmul(w.astype('float64').transpose(-2, -1)).reshape(...batch, seq, numHeads, dModel / numHeads).transpose(-3, -2);
}

/** The 16 entries for a multi-head case's inputs: its own heads (entry REAL) and their siblings. */
export function probeGrid(inputs: Record<string, Tensor>, numHeads: number): ProbeGrid {
  const { x, q_proj, k_proj, v_proj, mask } = inputs;
  const redrawn = { q: redrawFeatures(q_proj, numHeads), k: redrawFeatures(k_proj, numHeads), v: redrawFeatures(v_proj, numHeads) };
  const sibling = redrawPositions(x, mask);
  const weights = { q: [q_proj, redrawn.q.w], k: [k_proj, redrawn.k.w], v: [v_proj, redrawn.v.w] };
  const bit = (i: number, factor: Factor) => (i >> FACTORS.indexOf(factor)) & 1;
  const entries = Array.from({ length: ENTRIES }, (_, i) => {
    const xi = bit(i, 'x') ? sibling.x : x;
    return {
      q: splitHeads(xi, weights.q[bit(i, 'q')], numHeads),
      k: splitHeads(xi, weights.k[bit(i, 'k')], numHeads),
      v: splitHeads(xi, weights.v[bit(i, 'v')], numHeads),
      ...(mask && { mask }),
    };
  });
  return {
    entries,
    features: { q: redrawn.q.features, k: redrawn.k.features, v: redrawn.v.features },
    positions: sibling.positions,
    shape: [...entries[REAL].q.shape],
  };
}

/** A random order of the entries. */
export function shuffled(): number[] {
  const order = Array.from({ length: ENTRIES }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

const differ = (a: number, b: number, tol: Tolerance) => !(Math.abs(a - b) <= tol.atol + tol.rtol * Math.abs(b));

/** Whether `a` and `b` differ beyond the tolerance at some element `where` allows ([slice, head, row, column]). */
function differsWhere(a: Tensor, b: Tensor, shape: readonly number[], tol: Tolerance, where: (batch: number, head: number, row: number, col: number) => boolean): boolean {
  const [heads, seq, dHead] = shape.slice(-3);
  for (let i = 0; i < a.size; i++) {
    const col = i % dHead;
    const row = Math.floor(i / dHead) % seq;
    const slice = Math.floor(i / (dHead * seq));
    if (where(Math.floor(slice / heads), slice % heads, row, col) && differ(a.data[i], b.data[i], tol)) return true;
  }
  return false;
}

/** Why `answer` is no attention at all, or undefined: all zeros, constant, or one input copied or rescaled (a·X + b). */
function degenerate(answer: Tensor, entry: ProbeInputs, tol: Tolerance): string | undefined {
  const { data } = answer;
  let constant = true;
  for (let i = 1; i < data.length && constant; i++) constant = !differ(data[i], data[0], tol);
  if (constant) return data[0] === 0 ? 'all zeros' : 'the same value everywhere';
  for (const name of ['q', 'k', 'v'] as const) {
    const input = entry[name].data;
    if (input.length !== data.length) continue;
    // Least squares for a·input + b.
    let [sx, sy, sxx, sxy] = [0, 0, 0, 0];
    for (let i = 0; i < data.length; i++) {
      sx += input[i];
      sy += data[i];
      sxx += input[i] * input[i];
      sxy += input[i] * data[i];
    }
    const n = data.length;
    const slope = (n * sxy - sx * sy) / (n * sxx - sx * sx || 1);
    const intercept = (sy - slope * sx) / n;
    let copy = true;
    for (let i = 0; i < n && copy; i++) copy = !differ(slope * input[i] + intercept, data[i], tol);
    if (copy) return `its ${name === 'q' ? 'queries' : name === 'k' ? 'keys' : 'values'}, ${slope === 1 && intercept === 0 ? 'copied' : 'rescaled'}`;
  }
  return undefined;
}

const NAMES: Record<Factor, string> = { q: 'the queries', k: 'the keys', v: 'the values', x: 'x' };

/**
 * Why the answers (by entry, from two asks) cannot carry points, or undefined when they can.
 * `first` and `second` hold each entry's answer, shaped as the grid's entries.
 */
export function carryProblem(grid: ProbeGrid, first: readonly Tensor[], second: readonly Tensor[], tol: Tolerance): string | undefined {
  const real = first[REAL];
  const again = second[REAL];
  for (let i = 0; i < real.size; i++) if (differ(again.data[i], real.data[i], tol)) return 'its answer changed when asked again';
  const dull = degenerate(real, grid.entries[REAL], tol);
  if (dull) return `its answer is ${dull}`;
  const sibling = (factor: Factor) => first[1 << FACTORS.indexOf(factor)];
  for (const factor of FACTORS) {
    if (!differsWhere(real, sibling(factor), grid.shape, tol, () => true)) return `its answer does not depend on ${NAMES[factor]}`;
  }
  const dHead = grid.shape[grid.shape.length - 1];
  const mixesFeatures = dHead < 2 || (['q', 'k', 'v'] as const).some((factor) => {
    const changed = grid.features[factor];
    return differsWhere(real, sibling(factor), grid.shape, tol, (_, head, __, col) => !changed[head].includes(col));
  });
  if (!mixesFeatures) return 'its answer changes only in the features that changed: no attention mixes them';
  const mixesPositions = differsWhere(real, sibling('x'), grid.shape, tol, (batch, _, row) => !grid.positions[batch].includes(row));
  if (!mixesPositions) return 'its answer changes only at the positions that changed: no attention mixes them';
  return undefined;
}
