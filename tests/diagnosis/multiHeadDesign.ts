/**
 * Multi-head attention taken apart by design: the student's multiHeadSelfAttention called with
 * weights that leave one part at work at a time, each held against what multi-head attention built
 * around their own scaledDotProductAttention (which passes its tests by now) gives on the same
 * weights (multiHeadIgnored.ts aroundTheirAttention). A part is named only where its probe tells
 * it from the rest; otherwise what is wrong is said as measured (which heads):
 * - oProj = identity: the output is the concatenated heads, so a right output there puts what is
 *   wrong in what is done with oProj;
 * - qProj = kProj = vProj = identity (oProj too): each head attends over its own block of x's
 *   features, so a right output there puts what is wrong in a projection, found by giving each
 *   projection back its case's weight alone;
 * - one head live (its block of the identity in qProj, kProj and vProj, the other heads' rows zero,
 *   oProj = identity): head h's output alone, in head h's block. Which heads come out wrong, all
 *   zeros, right only without the mask, or right in value but in other places (the merge), and,
 *   where whole columns moved, oProj's columns moved back turn the graded output right.
 */
import type { GradedCase } from '../../lib/assignment/cases';
import type { Tolerance, Values } from '../../lib/compare';
import { formatIndex, unravelIndex } from '../../lib/format';
import type { LoadedFixture } from '../../lib/model/fixtures';
import { Tensor } from '../../lib/tensor';
import { withinTolerance, type Finding, type ProbeContext } from '../../lib/diagnosis/probe';
import { aroundTheirAttention, type MultiHeadInputs } from './multiHeadIgnored';

type Call = (inputs: MultiHeadInputs, numHeads: number) => Promise<Tensor | undefined>;

/**
 * The student's function against multi-head attention around their own attention, on the same
 * designed weights: the same code path in float32 or float64 on both sides, so only a mistake
 * differs by more.
 */
const DESIGNED: Tolerance = { atol: 1e-5, rtol: 1e-3 };
/** One head at a time is read only up to this many heads (numHeads = d_model has one feature each). */
const MOST_HEADS = 8;

/** A [d, d] weight of `like`'s dtype holding 1 at [r, r] for r in `rows`. */
function identity(like: Tensor, rows: Iterable<number>): Tensor {
  const d = like.shape[0];
  const data = like.dtype === 'float64' ? new Float64Array(d * d) : new Float32Array(d * d);
  for (const r of rows) data[r * d + r] = 1;
  return new Tensor(data, [d, d]);
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

const heads = (list: number[]) => (list.length === 1 ? `head ${list[0]}` : `heads ${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`);

interface Design {
  inputs: MultiHeadInputs;
  numHeads: number;
  call: Call;
  context: ProbeContext;
}

/** The student's output and the one around their attention on `inputs`, or undefined when either gives none. */
async function both(d: Design, inputs: MultiHeadInputs, numHeads = d.numHeads): Promise<{ got: Tensor; want: Tensor } | undefined> {
  const got = await d.call(inputs, numHeads);
  const want = await aroundTheirAttention(inputs, numHeads, d.context);
  return got && want && got.shape.join() === want.shape.join() ? { got, want } : undefined;
}

const agree = (pair: { got: Values; want: Values } | undefined) => pair !== undefined && withinTolerance(pair.got, pair.want, DESIGNED);

/** How head h's output came out: right, all zeros, its values in other places, or wrong. */
type HeadReading = { kind: 'right' | 'zero' | 'wrong' } | { kind: 'moved'; got: Tensor; want: Tensor };

function readHead(pair: { got: Tensor; want: Tensor } | undefined): HeadReading {
  if (!pair) return { kind: 'wrong' };
  if (withinTolerance(pair.got, pair.want, DESIGNED)) return { kind: 'right' };
  const { got, want } = pair;
  const nonzero = (t: Values) => Array.prototype.filter.call(t.data, (v: number) => Math.abs(v) > DESIGNED.atol).sort((a: number, b: number) => a - b) as number[];
  const [g, w] = [nonzero(got), nonzero(want)];
  if (g.length === 0 && w.length > 0) return { kind: 'zero' };
  const same = g.length === w.length && w.length > 0 && w.every((v, i) => Math.abs(g[i] - v) <= DESIGNED.atol + DESIGNED.rtol * Math.abs(v));
  return same ? { kind: 'moved', got, want } : { kind: 'wrong' };
}

/** Where the first misplaced value of head h went: "[0, 1, 5] comes out at [0, 4, 2]". */
function firstMove({ got, want }: { got: Tensor; want: Tensor }): string {
  const at = Array.prototype.findIndex.call(want.data, (v: number, i: number) => Math.abs(v) > DESIGNED.atol && !(Math.abs(got.data[i] - v) <= DESIGNED.atol + DESIGNED.rtol * Math.abs(v)));
  let [best, bestErr] = [0, Infinity];
  for (let i = 0; i < got.data.length; i++) {
    const err = Math.abs(got.data[i] - want.data[at]);
    if (err < bestErr) [best, bestErr] = [i, err];
  }
  return `${formatIndex(unravelIndex(at, want.shape))} comes out at ${formatIndex(unravelIndex(best, got.shape))}`;
}

/**
 * The column each column of the student's concatenation takes its values from, over every head's
 * probe (each column of a moved head's output equal, over all rows, to one column of its block),
 * or undefined when values moved across rows too.
 */
function columnOrder(readings: HeadReading[], numHeads: number, dModel: number): number[] | undefined {
  const dHead = dModel / numHeads;
  const source = new Array<number>(dModel).fill(-1);
  for (let h = 0; h < numHeads; h++) {
    const reading = readings[h];
    if (reading.kind !== 'moved' && reading.kind !== 'right') return undefined;
    for (const c of range(h * dHead, dHead)) {
      if (reading.kind === 'right') {
        if (source[c] >= 0) return undefined;
        source[c] = c;
        continue;
      }
      const { got, want } = reading as Extract<HeadReading, { kind: 'moved' }>;
      const rows = got.size / dModel;
      const columnIs = (gc: number) => range(0, rows).every((r) => Math.abs(got.data[r * dModel + gc] - want.data[r * dModel + c]) <= DESIGNED.atol + DESIGNED.rtol * Math.abs(want.data[r * dModel + c]));
      const to = range(0, dModel).filter((gc) => source[gc] < 0 && columnIs(gc));
      if (to.length !== 1) return undefined;
      source[to[0]] = c;
    }
  }
  return source.every((c) => c >= 0) ? source : undefined;
}

/** oProj with its columns reordered so that column c is the case's column `order[c]`: what code that moves the concatenation's columns needs. */
function reorderColumns(w: Tensor, order: number[]): Tensor {
  const d = w.shape[0];
  const data = w.data.slice() as Float32Array | Float64Array;
  for (let r = 0; r < d; r++) for (let c = 0; c < d; c++) data[r * d + c] = w.data[r * d + order[c]];
  return new Tensor(data, w.shape);
}

/** Whether whole heads moved, in order within each: column g·dHead + i takes head π(g)'s feature i. */
function wholeHeads(order: number[], dHead: number): boolean {
  return order.every((c, at) => c % dHead === at % dHead && Math.floor(order[at - (at % dHead)] / dHead) === Math.floor(c / dHead));
}

/** The case's weights with head h's rows of qProj, kProj and vProj zero: that head's attention averages zeros. */
function withoutHead(inputs: MultiHeadInputs, h: number, dHead: number): MultiHeadInputs {
  const zeroRows = (w: Tensor) => {
    const d = w.shape[1];
    const data = w.data.slice() as Float32Array | Float64Array;
    data.fill(0, h * dHead * d, (h + 1) * dHead * d);
    return new Tensor(data, w.shape);
  };
  return { ...inputs, q_proj: zeroRows(inputs.q_proj), k_proj: zeroRows(inputs.k_proj), v_proj: zeroRows(inputs.v_proj) };
}

/** Reverses the column order of a [d, d] weight: oProj = J, so that the output is the concatenation's columns reversed. */
function reversal(like: Tensor): Tensor {
  const d = like.shape[0];
  const data = like.dtype === 'float64' ? new Float64Array(d * d) : new Float32Array(d * d);
  for (let r = 0; r < d; r++) data[r * d + (d - 1 - r)] = 1;
  return new Tensor(data, [d, d]);
}

/** Whether b is a with its last dim reversed. */
function lastDimReversed(a: Values, b: Values): boolean {
  const d = a.shape[a.shape.length - 1];
  if (a.shape.join() !== b.shape.join()) return false;
  for (let i = 0; i < a.data.length; i++) {
    const j = i - (i % d) + (d - 1 - (i % d));
    if (!(Math.abs(b.data[j] - a.data[i]) <= DESIGNED.atol + DESIGNED.rtol * Math.abs(a.data[i]))) return false;
  }
  return true;
}

/**
 * One head live at a time: what each head's probe shows. `plumbingRight`: with every weight the
 * identity the output was right, so the heads together are not what is wrong.
 */
async function oneHeadAtATime(d: Design, graded: GradedCase, fixture: LoadedFixture, plumbingRight: boolean): Promise<Finding | undefined> {
  const { inputs, numHeads } = d;
  const dModel = inputs.x.shape[inputs.x.ndim - 1];
  const dHead = dModel / numHeads;
  if (numHeads > MOST_HEADS || !Number.isInteger(dHead)) return undefined;
  const eye = identity(inputs.o_proj, range(0, dModel));
  const live = (h: number, masked: boolean): MultiHeadInputs => {
    const block = identity(inputs.q_proj, range(h * dHead, dHead));
    return { x: inputs.x, q_proj: block, k_proj: block, v_proj: block, o_proj: eye, ...(masked && inputs.mask && { mask: inputs.mask }) };
  };
  const readings: HeadReading[] = [];
  for (let h = 0; h < numHeads; h++) readings.push(readHead(await both(d, live(h, true))));
  const of = (kind: HeadReading['kind']) => range(0, numHeads).filter((h) => readings[h].kind === kind);
  const how = `With one head live at a time (its block of the identity in qProj, kProj and vProj, the other heads' rows zero, oProj = identity)`;
  if (of('right').length === numHeads) {
    return plumbingRight ? undefined : { id: 'heads_together_wrong', evidence: `${how}, every head's output is right; with them all at work (every weight the identity), it is not.` };
  }
  const zero = of('zero');
  if (zero.length > 0 && of('right').length > 0 && zero.length + of('right').length === numHeads) {
    // Confirmed on the case itself: with those heads' weights zero, the graded output stays as it was.
    const out = await d.call(inputs, numHeads);
    let without: MultiHeadInputs = inputs;
    for (const h of zero) without = withoutHead(without, h, dHead);
    if (out && withinTolerance(await d.call(without, numHeads), out, DESIGNED)) {
      return { id: 'head_dropped', evidence: `${how}, your output is all zeros for ${heads(zero)}, where attention's is not, and the other heads come out right; with the case's weights of ${heads(zero)} made zero, your output stays the same.` };
    }
  }
  if (of('moved').length > 0 && of('moved').length + of('right').length === numHeads) {
    const order = columnOrder(readings, numHeads, dModel);
    const moved = of('moved');
    const first = firstMove(readings[moved[0]] as Extract<HeadReading, { kind: 'moved' }>);
    if (order) {
      const reordered = await d.call({ ...inputs, o_proj: reorderColumns(inputs.o_proj, order) }, numHeads);
      if (withinTolerance(reordered, fixture.expected, graded.tolerance)) {
        const id = wholeHeads(order, dHead) ? 'heads_order' : 'heads_merged_wrong';
        return { id, evidence: `${how}, the values of ${heads(moved)} are right but in other columns (head ${moved[0]}'s ${first}); with oProj's columns in that order, your output is right.` };
      }
    }
    // Moved before oProj, not after it: with oProj reversing the columns, the output is the same with its columns reversed.
    const reading = readings[moved[0]] as Extract<HeadReading, { kind: 'moved' }>;
    const flipped = await d.call({ ...live(moved[0], true), o_proj: reversal(inputs.o_proj) }, numHeads);
    if (flipped && lastDimReversed(reading.got, flipped)) {
      return { id: 'heads_merged_wrong', evidence: `${how}, the values of ${heads(moved)} are right but in other places (head ${moved[0]}'s ${first}), and with oProj reversing the columns they come out reversed: they are moved before oProj.` };
    }
  }
  const wrong = range(0, numHeads).filter((h) => readings[h].kind !== 'right');
  if (inputs.mask) {
    // Each wrong head gives without the mask what it gave with it, and that is right: it ignores the mask.
    let ignored = true;
    for (const h of wrong) {
      const unmasked = await both(d, live(h, false));
      const masked = await d.call(live(h, true), numHeads);
      ignored &&= agree(unmasked) && withinTolerance(masked, unmasked!.got, DESIGNED);
      if (!ignored) break;
    }
    if (ignored) {
      return { id: 'heads_ignore_mask', evidence: `${how}, ${heads(wrong)} give${wrong.length === 1 ? 's' : ''} the same output with the mask as without it, the output attention gives without it.` };
    }
  }
  const right = of('right');
  return { id: 'heads_wrong', evidence: `${how}, ${heads(wrong)} come${wrong.length === 1 ? 's' : ''} out wrong${right.length ? ` and ${heads(right)} right` : ''}.` };
}

/** What the designed probes show of a failing multi-head case, or undefined when they show nothing. */
export async function byDesign(
  inputs: MultiHeadInputs, numHeads: number, graded: GradedCase, fixture: LoadedFixture, context: ProbeContext, call: Call,
): Promise<Finding | undefined> {
  const d: Design = { inputs, numHeads, call, context };
  const dModel = inputs.x.shape[inputs.x.ndim - 1];
  const eye = identity(inputs.o_proj, range(0, dModel));
  if (agree(await both(d, { ...inputs, o_proj: eye }))) {
    return { id: 'output_projection_wrong', evidence: 'With oProj = identity your output is right (the heads concatenated, as attention gives them); with the case\'s oProj it is not.' };
  }
  const identities: MultiHeadInputs = { ...inputs, q_proj: eye, k_proj: eye, v_proj: eye, o_proj: eye };
  const plumbingRight = agree(await both(d, identities));
  if (plumbingRight) {
    const wrong: string[] = [];
    for (const [weight, name] of [['q_proj', 'qProj'], ['k_proj', 'kProj'], ['v_proj', 'vProj']] as const) {
      if (!agree(await both(d, { ...identities, [weight]: inputs[weight] }))) wrong.push(name);
    }
    if (wrong.length) {
      const names = wrong.length === 1 ? wrong[0] : `${wrong.slice(0, -1).join(', ')} and ${wrong[wrong.length - 1]}`;
      return { id: 'projection_wrong', evidence: `With every weight the identity your output is right; with the case's ${names} in place of the identity (one at a time, the others identity), it is not.` };
    }
  }
  return oneHeadAtATime(d, graded, fixture, plumbingRight);
}
