/**
 * What a softmax or causal-mask output shows when none of the stored mistakes matches it: a
 * softmax's output is its probabilities, so how its slices along dim sum and whether they follow
 * exp(x) is read straight from it; a NaN is told apart by the same function on an all-zero input
 * (where every exp is 1); a causal mask's wrong cells are counted and located. Each is what was
 * measured and where, with what to check: observations, no cause named.
 */
import type { Tolerance, Values } from '../../lib/compare';
import { formatNumber, plural, unravelIndex } from '../../lib/format';
import type { LoadedFixture } from '../../lib/model/fixtures';
import { Tensor } from '../../lib/tensor';
import { callPremises, CALLS, Premises } from './premises';
import { probeOutput, type Finding, type ProbeContext } from '../../lib/diagnosis/probe';
import { parseNonFinite, type Failure } from '../../lib/diagnosis/explain';

/** The slices of x along dim: each as the flat indices of its values, in order. */
function slices(shape: readonly number[], dim: number): number[][] {
  const d = dim < 0 ? dim + shape.length : dim;
  const n = shape[d];
  const inner = shape.slice(d + 1).reduce((a, b) => a * b, 1);
  const outer = shape.reduce((a, b) => a * b, 1) / Math.max(1, n * inner);
  const out: number[][] = [];
  for (let o = 0; o < outer; o++) for (let i = 0; i < inner; i++) out.push(Array.from({ length: n }, (_, j) => (o * n + j) * inner + i));
  return out;
}

/** "x[0, :, 2]": the slice along dim through a flat index. */
function sliceName(shape: readonly number[], dim: number, flat: number): string {
  const d = dim < 0 ? dim + shape.length : dim;
  return `x[${unravelIndex(flat, shape).map((v, i) => (i === d ? ':' : String(v))).join(', ')}]`;
}

/**
 * A finite softmax output, read at the first slice with a value out of tolerance: it does not sum
 * to 1 (beyond what the tolerance allows its values), or does but not in exp(x)'s proportions.
 */
function readSlices(x: Values, dim: number, out: Values, expected: Values, { atol, rtol }: Tolerance): Finding | undefined {
  for (const at of slices(x.shape, dim)) {
    if (at.every((i) => Math.abs(out.data[i] - expected.data[i]) <= atol + rtol * Math.abs(expected.data[i]))) continue;
    const where = sliceName(x.shape, dim, at[0]);
    const sum = at.reduce((acc, i) => acc + out.data[i], 0);
    if (!(Math.abs(sum - 1) <= at.length * atol + rtol)) return { id: 'softmax_sums', evidence: `The first slice that does not, ${where}, sums to ${formatNumber(sum)}.` };
    const kept = at.filter((i) => out.data[i] > 1e-30);
    const ref = kept.reduce((best, i) => (out.data[i] > out.data[best] ? i : best), kept[0]);
    // Proportions of exp(x): log p_i − log p_ref = x_i − x_ref, to float32 rounding of both.
    const off = kept.some((i) => !(Math.abs(Math.log(out.data[i] / out.data[ref]) - (x.data[i] - x.data[ref])) <= 1e-3 * Math.max(1, Math.abs(x.data[i] - x.data[ref]))));
    const lost = at.some((i) => !(out.data[i] > 1e-30) && x.data[ref] - x.data[i] < 60);
    if (off || lost) return { id: 'softmax_not_exp', evidence: `The first slice where they are not: ${where}.` };
  }
  return undefined;
}

/** A softmax that gave NaN: told apart by the same call on zeros. */
async function nanSource(failure: Failure, x: Tensor, params: Record<string, number>, context: ProbeContext): Promise<Finding | undefined> {
  const found = parseNonFinite(failure);
  if (!found || found.index.length !== x.ndim) return undefined;
  const flat = found.index.reduce((acc, i, d) => acc * x.shape[d] + i, 0);
  const where = sliceName(x.shape, params.dim, flat);
  const zeros = await probeOutput(context, 'softmax', { params, inputs: { x: Tensor.zeros(x.shape, x.dtype === 'float64' ? 'float64' : 'float32') } });
  if (!zeros) return undefined;
  const finite = Array.prototype.every.call(zeros.data, (v: number) => Number.isFinite(v));
  return finite
    ? { id: 'softmax_out_of_range', evidence: `The first non-finite value is in ${where}.` }
    : { id: 'softmax_nan', evidence: `On this case the first non-finite value is in ${where}.` };
}

export async function diagnoseSoftmax(fixture: LoadedFixture, tolerance: Tolerance, outcome: Failure | { kind: 'output'; output: Values }, context: ProbeContext): Promise<Finding[]> {
  const { x } = fixture.inputs;
  if (outcome.kind === 'output') {
    if (outcome.output.shape.join() !== x.shape.join()) return [];
    const found = readSlices(x, fixture.params.dim, outcome.output, fixture.expected, tolerance);
    return found ? [found] : [];
  }
  // A probe follows: the calls must answer for the code that failed.
  const other = { params: fixture.params, inputs: { x: x.mul(0.5) } };
  const broken = await new Premises(callPremises(context, 'softmax', { params: fixture.params, inputs: { x } }, other,
    { stateKept: 'softmax_state_kept', inputsChanged: 'softmax_inputs_changed' })).broken(CALLS);
  if (broken) return [broken];
  const found = await nanSource(outcome, x, fixture.params, context);
  return found ? [found] : [];
}

/** A causal mask's wrong cells: the future let in, or a past key or the query itself hidden. */
export function causalCells(out: Values, n: number): Finding[] {
  if (out.shape.join() !== [n, n].join()) return [];
  const future: number[] = [];
  const hidden: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const on = out.data[i * n + j] !== 0;
      if (on && j > i) future.push(i * n + j);
      if (!on && j <= i) hidden.push(i * n + j);
    }
  }
  const cell = (at: number) => `query ${Math.floor(at / n)}, key ${at % n}`;
  const parts = [
    future.length && `${plural(future.length, 'cell')} where a query sees a later key (the first: ${cell(future[0])})`,
    hidden.length && `${plural(hidden.length, 'cell')} where a query does not see itself or an earlier key (the first: ${cell(hidden[0])})`,
  ].filter(Boolean);
  return parts.length ? [{ id: 'causal_cells', evidence: `Your mask has ${parts.join(', and ')}.` }] : [];
}
