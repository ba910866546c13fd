/**
 * The float32 error bound of the gradients part (docs/float32-error.md, "Gradients"): how far a
 * correct float32 backward pass in any order (the reference's, FlashAttention's D = rowsum(dOut ⊙
 * output), the Jacobian diag(p) − p pᵀ formed whole, the scale on dS, on K or Q or split between
 * them, probabilities recomputed by any softmax of attention.ts) may land from the float64 value.
 * A gradient that is 0 in exact arithmetic is not 0 in float32 where the terms that cancel are
 * large: each bound carries a term from the magnitude of the products summed.
 */
import { broadcastShape, gamma, offsetOf, SECOND_ORDER, size, U, unravel, type Arr } from './terms';

/**
 * softmaxBackward(y, dy, dim)'s bound, with s = Σ_k y_k dy_k and m = Σ_k |y_k dy_k| over the slice:
 *   bound_j = 1.05·( |y_j|·(γ_{n+4}·(m + |dy_j|) + u·|s|) + 2u·|dx_j| )
 * The sum s in any order, y and dy read as float32: γ_{n+2}·m; the Jacobian formed whole sums
 * n + 1 products of three: γ_{n+4}·(m + |dy_j|) covers both. dy_j − s rounds at u·(|dy_j| + |s|)
 * (its dy_j part inside the γ term), the product with y_j and the stored value at u·|dx_j| each.
 */
export function softmaxBackwardBound(y: Arr, dy: Arr, dim: number): Float64Array {
  const axis = dim < 0 ? dim + y.shape.length : dim;
  const n = y.shape[axis];
  const inner = size(y.shape.slice(axis + 1));
  const outer = n * inner === 0 ? 0 : y.data.length / (n * inner);
  const bound = new Float64Array(y.data.length);
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const at = (j: number) => (o * n + j) * inner + i;
      let [s, m] = [0, 0];
      for (let j = 0; j < n; j++) {
        s += y.data[at(j)] * dy.data[at(j)];
        m += Math.abs(y.data[at(j)] * dy.data[at(j)]);
      }
      for (let j = 0; j < n; j++) {
        const [yj, dyj] = [y.data[at(j)], dy.data[at(j)]];
        bound[at(j)] = SECOND_ORDER * (Math.abs(yj) * (gamma(n + 4) * (m + Math.abs(dyj)) + U * Math.abs(s)) + 2 * U * Math.abs(yj * (dyj - s)));
      }
    }
  }
  return bound;
}

export interface AttentionGradients {
  dQ: Float64Array;
  dK: Float64Array;
  dV: Float64Array;
}

/** One query's probabilities over its keys with each one's relative error bound (attention.ts's ε and δ, renormalised). */
interface Row {
  p: Float64Array;
  /** |δp_j| ≤ p_j·rho_j. */
  rho: Float64Array;
  /** The error every weight of the row shares (δ), and the mean score error Σ p_j ε_j. */
  shared: number;
  eps: Float64Array;
}

/** Row i of the masked softmax of q_i·k_j/√d, or undefined when every key is masked (that row passes no gradient). */
function row(q: (c: number) => number, k: (j: number, c: number) => number, allowed: (j: number) => boolean, nK: number, d: number): Row | undefined {
  const scale = 1 / Math.sqrt(d);
  const [s, eps, p, rho] = [new Float64Array(nK), new Float64Array(nK), new Float64Array(nK), new Float64Array(nK)];
  let max = -Infinity;
  for (let j = 0; j < nK; j++) {
    if (!allowed(j)) {
      s[j] = -Infinity;
      continue;
    }
    let [dot, magnitude] = [0, 0];
    for (let c = 0; c < d; c++) {
      dot += q(c) * k(j, c);
      magnitude += Math.abs(q(c) * k(j, c));
    }
    s[j] = dot * scale;
    eps[j] = gamma(d + 4) * magnitude * scale + 2 * U * (Math.abs(s[j]) + 1);
    max = Math.max(max, s[j]);
  }
  if (max === -Infinity) return undefined;
  let sum = 0;
  for (let j = 0; j < nK; j++) sum += p[j] = Math.exp(s[j] - max);
  let mean = 0;
  for (let j = 0; j < nK; j++) {
    p[j] /= sum;
    if (s[j] !== -Infinity) eps[j] += 4 * U * (max - s[j]);
    mean += p[j] * eps[j];
  }
  const shared = U * (Math.abs(max) + Math.log(nK) + 2) + gamma(2 * nK + 2);
  // (1 − p_j)ε_j + Σ_{k≠j} p_k ε_k + δ: what renormalising leaves of the score errors, and δ.
  for (let j = 0; j < nK; j++) rho[j] = eps[j] * (1 - 2 * p[j]) + mean + shared;
  return { p, rho, shared, eps };
}

/**
 * scaledDotProductAttentionBackward's bounds on dQ, dK and dV. Per query i, with p its masked
 * probabilities (relative errors ρ_j), dP_j = Σ_c dO_c V_jc and A_j = Σ_c |dO_c V_jc|:
 *   D      = Σ_j p_j dP_j,   δD = Σ_j p_j ε_j |dP_j − D| + δ·Σ_j p_j|dP_j| + γ_{n+2d_v+6}·Σ_j p_j A_j
 *   dS_j   = p_j (dP_j − D), δdS_j = p_j ρ_j |dP_j − D| + p_j (γ_{d_v+2}·A_j + δD) + 2u·p_j(|dP_j| + |D|) + u|dS_j|
 *   dQ_a   = c Σ_j dS_j K_ja within c Σ_j δdS_j |K_ja| + γ_{n_k+6}·c Σ_j |dS_j K_ja| + u|dQ_a|
 *   dK_ja  = c Σ_i dS_ij Q_ia within c Σ_i δdS_ij |Q_ia| + γ_{n_q+6}·c Σ_i |dS_ij Q_ia| + u|dK_ja|
 *   dV_jc  = Σ_i p_ij dO_ic within Σ_i p_ij ρ_ij |dO_ic| + γ_{n_q+3}·Σ_i p_ij |dO_ic| + u|dV_jc|
 * δD holds for D summed either way: over the keys, or as Σ_c dO_c o_c from a float32 output o
 * (renormalised weights move it by p_j ε_j (dP_j − D), as they move o by p_j ε_j (v_j − o)). The γ
 * terms are the sums in any order with the inputs read as float32, the scale 1/√d_k (c) rounded
 * and put anywhere, split or not; u|·| the stored value. Masked keys have p = 0: no term.
 */
export function attentionBackwardBounds({ q, k, v, d_out: dOut, mask }: Readonly<Record<string, Arr>>): AttentionGradients {
  const [nQ, d] = q.shape.slice(-2);
  const [nK, dV] = v.shape.slice(-2);
  const lead = broadcastShape([q, k, v, dOut, ...(mask ? [mask] : [])].map((t) => t.shape.slice(0, -2)));
  // Each gradient's value and its bound before the stored value's rounding, summed over queries.
  const value = { dQ: new Float64Array(q.data.length), dK: new Float64Array(k.data.length), dV: new Float64Array(v.data.length) };
  const carried = { dQ: new Float64Array(q.data.length), dK: new Float64Array(k.data.length), dV: new Float64Array(v.data.length) };
  const c = 1 / Math.sqrt(d);
  for (let b = 0; b < size(lead); b++) {
    const index = unravel(b, lead);
    const [qAt, kAt, vAt, oAt] = [q, k, v, dOut].map((t, n) => offsetOf(t.shape.slice(0, -2), index) * [nQ * d, nK * d, nK * dV, nQ * dV][n]);
    for (let i = 0; i < nQ; i++) {
      const allowed = (j: number) => !mask || mask.data[offsetOf(mask.shape, [...index, i, j])] !== 0;
      const r = row((a) => q.data[qAt + i * d + a], (j, a) => k.data[kAt + j * d + a], allowed, nK, d);
      if (!r) continue;
      const dO = (ch: number) => dOut.data[oAt + i * dV + ch];
      const [dP, A] = [new Float64Array(nK), new Float64Array(nK)];
      let [D, weighted, magnitude, spread] = [0, 0, 0, 0];
      for (let j = 0; j < nK; j++) {
        if (r.p[j] === 0) continue;
        for (let ch = 0; ch < dV; ch++) {
          const term = dO(ch) * v.data[vAt + j * dV + ch];
          dP[j] += term;
          A[j] += Math.abs(term);
        }
        D += r.p[j] * dP[j];
        weighted += r.p[j] * Math.abs(dP[j]);
        magnitude += r.p[j] * A[j];
      }
      for (let j = 0; j < nK; j++) spread += r.p[j] * r.eps[j] * Math.abs(dP[j] - D);
      const dD = spread + r.shared * weighted + gamma(nK + 2 * dV + 6) * magnitude;
      for (let j = 0; j < nK; j++) {
        const p = r.p[j];
        if (p === 0) continue;
        const dS = p * (dP[j] - D);
        const edS = p * r.rho[j] * Math.abs(dP[j] - D) + p * (gamma(dV + 2) * A[j] + dD) + 2 * U * p * (Math.abs(dP[j]) + Math.abs(D)) + U * Math.abs(dS);
        for (let a = 0; a < d; a++) {
          const [qa, kj] = [q.data[qAt + i * d + a], k.data[kAt + j * d + a]];
          value.dQ[qAt + i * d + a] += c * dS * kj;
          carried.dQ[qAt + i * d + a] += c * (edS * Math.abs(kj) + gamma(nK + 6) * Math.abs(dS * kj));
          value.dK[kAt + j * d + a] += c * dS * qa;
          carried.dK[kAt + j * d + a] += c * (edS * Math.abs(qa) + gamma(nQ + 6) * Math.abs(dS * qa));
        }
        for (let ch = 0; ch < dV; ch++) {
          value.dV[vAt + j * dV + ch] += p * dO(ch);
          carried.dV[vAt + j * dV + ch] += p * (r.rho[j] + gamma(nQ + 3)) * Math.abs(dO(ch));
        }
      }
    }
  }
  const stored = (part: keyof AttentionGradients) => carried[part].map((e, x) => SECOND_ORDER * (e + U * Math.abs(value[part][x])));
  return { dQ: stored('dQ'), dK: stored('dK'), dV: stored('dV') };
}
