/**
 * The float32 error bound of scaled dot-product attention, element by element
 * (docs/float32-error.md): how far a correct float32 computation in any order (scale before or
 * after QKᵀ, base-2 exp with log₂e folded into the scale, log-sum-exp, online or tiled softmax,
 * sums in any order) may land from the float64 value on these inputs.
 */
import { broadcastShape, gamma, offsetOf, SECOND_ORDER, size, U, unravel, type Arr } from './terms';

/** Q [...batch, queries, dK], K [...batch, keys, dK], V [...batch, keys, dV], a boolean mask broadcastable to [...batch, queries, keys]. */
export interface AttentionInputs {
  q: Arr;
  k: Arr;
  v: Arr;
  mask?: Arr;
  /** Bounds on errors Q, K, V already carry (multi-head attention's projections), element by element; none by default. */
  dq?: ArrayLike<number>;
  dk?: ArrayLike<number>;
  dv?: ArrayLike<number>;
  /** The scores' factor: 1/√d_k by default, 1 for unscaled attention (Problem 2). */
  scale?: number;
}

export interface Attended {
  /** The float64 output [...batch, queries, dV]. */
  out: Float64Array;
  bound: Float64Array;
  shape: number[];
  /** The bound of the weights [...batch, queries, keys] themselves, for a function that returns them. */
  weightsBound: Float64Array;
}

/**
 * Per query i, with s_j = q·k_j/√d, t_j = s_j − max, p the softmax over the allowed keys, o = Σ p_j v_j:
 *   ε_j = γ_{d+4}·Σ_c|q_c k_jc|/√d + Σ_c(δq_c|k_jc| + |q_c|δk_jc)/√d + u·(2|s_j| + 4|t_j| + 2)
 *   bound_c = Σ_j p_j ε_j |v_jc − o_c| + (δ + γ_{3n+2})·Σ_j p_j|v_jc| + Σ_j p_j δv_jc + u·|o_c|
 * The first line is each score's error in natural-log units: the dot product in any order, with Q
 * and K read as float32 and either pre-scaled (γ's d + 4 roundings); errors the inputs carry; the
 * score scaled and log₂e folded in (2u|s|), the constants and the max subtracted (4u|t|), exp (2u).
 * Each moves the output by p_j ε_j (v_j − o): softmax renormalises, so only differences count.
 * δ (softmax.ts) is what every weight shares; γ_{3n+2} the weighted sum of V in any order with a
 * rescale per key (online); u|o| the expected value stored as float32. A fully masked row is exact zeros.
 */
export function attention({ q, k, v, mask, dq, dk, dv, scale = 1 / Math.sqrt(q.shape[q.shape.length - 1]) }: AttentionInputs): Attended {
  const [nQ, d] = q.shape.slice(-2);
  const [nK, dV] = v.shape.slice(-2);
  const leads = [q.shape.slice(0, -2), k.shape.slice(0, -2), v.shape.slice(0, -2), ...(mask ? [mask.shape.slice(0, -2)] : [])];
  const lead = broadcastShape(leads);
  const out = new Float64Array(size(lead) * nQ * dV);
  const bound = new Float64Array(out.length);
  const weightsBound = new Float64Array(size(lead) * nQ * nK);
  const s = new Float64Array(nK);
  const eps = new Float64Array(nK);
  const p = new Float64Array(nK);
  for (let b = 0; b < size(lead); b++) {
    const index = unravel(b, lead);
    const [qAt, kAt, vAt] = [offsetOf(q.shape.slice(0, -2), index) * nQ * d, offsetOf(k.shape.slice(0, -2), index) * nK * d, offsetOf(v.shape.slice(0, -2), index) * nK * dV];
    for (let i = 0; i < nQ; i++) {
      let max = -Infinity;
      for (let j = 0; j < nK; j++) {
        if (mask && mask.data[offsetOf(mask.shape, [...index, i, j])] === 0) {
          s[j] = -Infinity;
          continue;
        }
        let [dot, magnitude, carried] = [0, 0, 0];
        for (let c = 0; c < d; c++) {
          const [x, y] = [q.data[qAt + i * d + c], k.data[kAt + j * d + c]];
          dot += x * y;
          magnitude += Math.abs(x * y);
          carried += (dq?.[qAt + i * d + c] ?? 0) * Math.abs(y) + Math.abs(x) * (dk?.[kAt + j * d + c] ?? 0);
        }
        s[j] = dot * scale;
        eps[j] = gamma(d + 4) * magnitude * scale + carried * scale + 2 * U * (Math.abs(s[j]) + 1);
        max = Math.max(max, s[j]);
      }
      if (max === -Infinity) continue;
      let sum = 0;
      for (let j = 0; j < nK; j++) sum += p[j] = Math.exp(s[j] - max);
      for (let j = 0; j < nK; j++) {
        p[j] /= sum;
        if (s[j] !== -Infinity) eps[j] += 4 * U * (max - s[j]);
      }
      weights(p, eps, U * (Math.abs(max) + Math.log(nK) + 2) + gamma(2 * nK + 2), weightsBound, (b * nQ + i) * nK);
      const shared = U * (Math.abs(max) + Math.log(nK) + 2) + gamma(2 * nK + 2) + gamma(3 * nK + 2);
      for (let c = 0; c < dV; c++) {
        const at = ((b * nQ) + i) * dV + c;
        let [o, weighted, carried] = [0, 0, 0];
        for (let j = 0; j < nK; j++) {
          if (p[j] === 0) continue;
          o += p[j] * v.data[vAt + j * dV + c];
          weighted += p[j] * Math.abs(v.data[vAt + j * dV + c]);
          carried += p[j] * (dv?.[vAt + j * dV + c] ?? U * Math.abs(v.data[vAt + j * dV + c]));
        }
        let spread = 0;
        for (let j = 0; j < nK; j++) if (p[j] !== 0) spread += p[j] * eps[j] * Math.abs(v.data[vAt + j * dV + c] - o);
        out[at] = o;
        bound[at] = SECOND_ORDER * (spread + shared * weighted + carried + U * Math.abs(o));
      }
    }
  }
  return { out, bound, shape: [...lead, nQ, dV], weightsBound };
}

/**
 * A query's weights returned as they are (attention's `weights`): as softmax's bound (softmax.ts),
 * p_j·((1 − p_j)ε_j + Σ_{k≠j} p_k ε_k + δ + u), with the scores' ε_j and δ without V's sum. A
 * masked key's weight is exactly 0.
 */
function weights(p: Float64Array, eps: Float64Array, shared: number, into: Float64Array, at: number): void {
  let mean = 0;
  for (let j = 0; j < p.length; j++) if (p[j] !== 0) mean += p[j] * eps[j];
  for (let j = 0; j < p.length; j++) {
    if (p[j] === 0) continue;
    into[at + j] = SECOND_ORDER * p[j] * ((1 - p[j]) * eps[j] + mean - p[j] * eps[j] + shared + U);
  }
}

/** scaledDotProductAttention's bound: its inputs read as float32 (u|v|), no other error carried. */
export function attentionBound(inputs: Readonly<Record<string, Arr>>): Float64Array {
  const { q, k, v, mask } = inputs;
  return attention({ q, k, v, mask }).bound;
}
