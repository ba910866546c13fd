/**
 * The float32 error bounds of multi-head self-attention and of the course's biased variants
 * (docs/float32-error.md): the projections' errors carried into attention's bound (attention.ts),
 * then through the output projection, if there is one.
 */
import { attention, type Attended } from './attention';
import { gamma, SECOND_ORDER, U, type Arr } from './terms';

/**
 * y = x·Wᵀ (+ b) over the last dim, with the bound of its float32 rounding in any order, plus what x
 * already carries. x and W read as float32 (2), dIn products and their sum in any order: dIn + 2
 * roundings of Σ|x||W|; a bias read as float32 and added is one more rounding, of |b| too.
 */
function project(x: ArrayLike<number>, rows: number, w: Arr, carried?: ArrayLike<number>, bias?: Arr): { y: Float64Array; dy: Float64Array } {
  const [dOut, dIn] = w.shape;
  const y = new Float64Array(rows * dOut);
  const dy = new Float64Array(rows * dOut);
  const g = gamma(dIn + (bias ? 3 : 2));
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < dOut; o++) {
      let [sum, magnitude, spread] = [bias?.data[o] ?? 0, Math.abs(bias?.data[o] ?? 0), 0];
      for (let c = 0; c < dIn; c++) {
        const [a, b] = [x[r * dIn + c], w.data[o * dIn + c]];
        sum += a * b;
        magnitude += Math.abs(a * b);
        spread += (carried?.[r * dIn + c] ?? 0) * Math.abs(b);
      }
      y[r * dOut + o] = sum;
      dy[r * dOut + o] = g * magnitude + spread;
    }
  }
  return { y, dy };
}

/** [rows = batches·seq, heads·dHead] ↔ [batches, heads, seq, dHead]. */
function heads(t: ArrayLike<number>, batches: number, seq: number, numHeads: number, dHead: number, back = false): Float64Array {
  const out = new Float64Array(t.length);
  for (let b = 0; b < batches; b++)
    for (let s = 0; s < seq; s++)
      for (let h = 0; h < numHeads; h++)
        for (let c = 0; c < dHead; c++) {
          const [flat, split] = [(b * seq + s) * numHeads * dHead + h * dHead + c, ((b * numHeads + h) * seq + s) * dHead + c];
          if (back) out[flat] = t[split];
          else out[split] = t[flat];
        }
  return out;
}

/** A case's inputs by name: x, the projections (q_proj…), their biases where the function has them (q_bias…), the mask. */
type Weights = Readonly<Record<string, Arr>>;

/**
 * x [...batch, seq, dModel], weights [dModel, dModel] (out, in), biases [dModel] where given, heads
 * of contiguous features. q, k, v = x·Wᵀ (+ b) each within γ_{D+2}·|x||W|ᵀ (γ_{D+3}, and |b|, with
 * a bias); attention's bound with those carried (its scores see δq·|k| + |q|·δk, its output Σ p δv,
 * its weights the same ε); then, with an output projection, y = h·W_oᵀ (+ b_o) within
 * Σ_c bound_c|W_o| + γ_{D+2}·|h||W_o|ᵀ + u|y|. Reassociating (weights multiplied first, P·x before V's
 * projection) moves the same magnitudes by no more roundings than these.
 */
function projectedAttention(inputs: Weights, numHeads: number, scale?: number): { attended: Attended; rows: number; merge(t: ArrayLike<number>): Float64Array } {
  const { x, mask } = inputs;
  const [seq, dModel] = x.shape.slice(-2);
  const rows = seq === 0 ? 0 : x.data.length / dModel;
  const batches = rows / seq;
  const dHead = dModel / numHeads;
  const split = (t: ArrayLike<number>) => ({ data: heads(t, batches, seq, numHeads, dHead), shape: [batches, numHeads, seq, dHead] });
  const [q, k, v] = ['q', 'k', 'v'].map((p) => project(x.data, rows, inputs[`${p}_proj`], undefined, inputs[`${p}_bias`]));
  const attended = attention({
    q: split(q.y), k: split(k.y), v: split(v.y), mask, scale,
    dq: split(q.dy).data, dk: split(k.dy).data, dv: split(v.dy).data,
  });
  return { attended, rows, merge: (t) => heads(t, batches, seq, numHeads, dHead, true) };
}

/** The output projection's bound on the merged heads, and u|y| for the expected value stored as float32. */
function outputBound(inputs: Weights, numHeads: number): Float64Array {
  const { attended, rows, merge } = projectedAttention(inputs, numHeads);
  const y = project(merge(attended.out), rows, inputs.o_proj, merge(attended.bound), inputs.o_bias);
  return y.dy.map((e, i) => SECOND_ORDER * (e + U * Math.abs(y.y[i])));
}

/** multiHeadSelfAttention's bound: no bias. */
export function multiHeadBound(inputs: Weights, numHeads: number): Float64Array {
  return outputBound(inputs, numHeads);
}

/** multiHeadAttention's bound on `part`: its output (biases on all four projections), or every head's weights [...batch, heads, seq, seq]. */
export function biasedMultiHeadBound(inputs: Weights, numHeads: number, part: string): Float64Array {
  return part === 'weights' ? projectedAttention(inputs, numHeads).attended.weightsBound : outputBound(inputs, numHeads);
}

/** singleHeadAttention's bound: one head over all of dModel, biased projections, no output projection; `scaled` false for Problem 2's unscaled scores. */
export function singleHeadBound(inputs: Weights, scaled: boolean): Float64Array {
  return projectedAttention(inputs, 1, scaled ? undefined : 1).attended.bound;
}
