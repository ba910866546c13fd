/**
 * Correct float32 backward passes written in orders other than the reference's, for the gradients
 * part's fairness self-test (selftest/gradients/fairness.test.ts): every value rounded with
 * Math.fround, the probabilities recomputed by any softmax pass of kernels.ts, D_i summed over the
 * keys or taken as rowsum(dOut ⊙ output) from a float32 forward output (FlashAttention's), dS
 * factored, expanded or through the whole Jacobian diag(p) − p pᵀ, and 1/√d_k put anywhere.
 */
import { broadcastOffset } from '../../lib/compare';
import { unravelIndex } from '../../lib/format';
import { Tensor } from '../../lib/tensor';
import { dot, f, softmaxRow, sum, type RowStyle } from './kernels';

export interface BackwardStyle extends RowStyle {
  name: string;
  /** D_i = Σ_j p_ij dP_ij (the reference's), or Σ_c dOut_ic o_ic from a float32 forward output. */
  rowSum: 'probabilities' | 'output';
  /**
   * Where 1/√d_k goes (log₂e joins it on the scores in base 2): on dS (`scores`), on K and Q before
   * the products (`operands`: Q pre-scaled for the scores too), after them (`after`), or its square
   * root on both sides (`split`, PyTorch's math backend).
   */
  scale: 'scores' | 'operands' | 'after' | 'split';
  /** dS as p ⊙ (dP − D), as p ⊙ dP − p ⊙ D, or the Jacobian diag(p) − p pᵀ formed and applied. */
  jacobian: 'factored' | 'expanded' | 'matrix';
}

const LOG2E = f(Math.LOG2E);

/** One slice's softmax gradient from p and the upstream gradient g, in float32, as the style forms it; `rowSum` given or summed here. */
function jacobianRow(p: Float32Array, g: Float32Array, style: BackwardStyle, rowSum?: number): Float32Array {
  const n = p.length;
  if (style.jacobian === 'matrix') {
    return Float32Array.from({ length: n }, (_, j) => sum(n, (k) => f(f((j === k ? p[j] : 0) - f(p[j] * p[k])) * g[k]), style.order));
  }
  const D = rowSum ?? dot(n, (k) => p[k], (k) => g[k], style.order);
  return Float32Array.from({ length: n }, (_, j) => (style.jacobian === 'factored' ? f(p[j] * f(g[j] - D)) : f(f(p[j] * g[j]) - f(p[j] * D))));
}

/** The leading dims of the inputs broadcast together, and each one's offset per batch entry. */
function batches(tensors: Tensor[]) {
  const leads = tensors.map((t) => t.shape.slice(0, -2));
  const n = Math.max(...leads.map((l) => l.length));
  const lead = Array.from({ length: n }, (_, d) => Math.max(1, ...leads.map((l) => l[l.length - n + d] ?? 1)));
  const offset = (t: Tensor, index: number[]) => (t.ndim === 2 ? 0 : broadcastOffset(t.shape.slice(0, -2), index));
  return { lead, count: lead.reduce((a, b) => a * b, 1), offset };
}

export function backwardSubmissionOf(style: BackwardStyle) {
  function softmaxBackward(y: Tensor, dy: Tensor, dim: number): Tensor {
    const axis = dim < 0 ? dim + y.ndim : dim;
    const n = y.shape[axis];
    const inner = y.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    const out = new Float32Array(y.size);
    for (let o = 0; o < y.size / (n * inner); o++) {
      for (let i = 0; i < inner; i++) {
        const at = (j: number) => (o * n + j) * inner + i;
        const dx = jacobianRow(Float32Array.from({ length: n }, (_, j) => y.data[at(j)]), Float32Array.from({ length: n }, (_, j) => dy.data[at(j)]), style);
        for (let j = 0; j < n; j++) out[at(j)] = dx[j];
      }
    }
    return new Tensor(out, y.shape);
  }

  function scaledDotProductAttentionBackward(Q: Tensor, K: Tensor, V: Tensor, dOut: Tensor, mask?: Tensor) {
    const [nQ, d] = Q.shape.slice(-2);
    const [nK, dV] = V.shape.slice(-2);
    const c = f(1 / Math.sqrt(d));
    const root = f(Math.sqrt(c));
    // The scores' scale, log₂e folded in for base 2; the gradients' is c alone.
    const cs = style.base2 ? f(c * LOG2E) : c;
    const { lead, count, offset } = batches([Q, K, V, dOut, ...(mask ? [mask] : [])]);
    const grads = { dQ: new Float32Array(Q.size), dK: new Float32Array(K.size), dV: new Float32Array(V.size) };
    for (let b = 0; b < count; b++) {
      const index = unravelIndex(b, lead);
      const rows = (t: Tensor, n: number, w: number) => Float32Array.from(t.data.subarray(offset(t, index) * n * w, (offset(t, index) + 1) * n * w));
      const [q, k, v, dO] = [rows(Q, nQ, d), rows(K, nK, d), rows(V, nK, dV), rows(dOut, nQ, dV)];
      const split = (t: Float32Array) => Float32Array.from(t, (x) => f(x * (style.scale === 'split' ? f(Math.sqrt(cs)) : cs)));
      const qs = style.scale === 'operands' || style.scale === 'split' ? split(q) : q;
      const ks = style.scale === 'split' ? split(k) : k;
      const [P, dS] = [new Float32Array(nQ * nK), new Float32Array(nQ * nK)];
      for (let i = 0; i < nQ; i++) {
        const s = Float32Array.from({ length: nK }, (_, j) => {
          if (mask && mask.data[broadcastOffset(mask.shape, [...index, i, j])] === 0) return -Infinity;
          const raw = dot(d, (t) => qs[i * d + t], (t) => ks[j * d + t], style.order);
          return style.scale === 'operands' || style.scale === 'split' ? raw : f(raw * cs);
        });
        const p = softmaxRow(s, (j, col) => Number(j === col), nK, style);
        const dP = Float32Array.from({ length: nK }, (_, j) => dot(dV, (t) => dO[i * dV + t], (t) => v[j * dV + t], style.order));
        let rowSum: number | undefined;
        if (style.rowSum === 'output') {
          const o = softmaxRow(s, (j, col) => v[j * dV + col], dV, style);
          rowSum = dot(dV, (t) => dO[i * dV + t], (t) => o[t], style.order);
        }
        dS.set(jacobianRow(p, dP, style, rowSum), i * nK);
        P.set(p, i * nK);
      }
      const at = (t: Tensor, n: number, w: number) => offset(t, index) * n * w;
      for (let j = 0; j < nK; j++) for (let t = 0; t < dV; t++) grads.dV[at(V, nK, dV) + j * dV + t] = sum(nQ, (i) => f(P[i * nK + j] * dO[i * dV + t]), style.order);
      gradient(grads.dQ, at(Q, nQ, d), nQ, nK, d, (i, j) => dS[i * nK + j], k);
      gradient(grads.dK, at(K, nK, d), nK, nQ, d, (j, i) => dS[i * nK + j], q);
    }
    return { dQ: new Tensor(grads.dQ, Q.shape), dK: new Tensor(grads.dK, K.shape), dV: new Tensor(grads.dV, V.shape) };

    /** out[r, a] = c Σ_m g(r, m) x[m, a] for r < rows, m < inner, in float32, with c where the style puts it. */
    function gradient(out: Float32Array, start: number, rows: number, inner: number, width: number, g: (r: number, m: number) => number, x: Float32Array): void {
      const xs = style.scale === 'operands' ? Float32Array.from(x, (v) => f(v * c)) : style.scale === 'split' ? Float32Array.from(x, (v) => f(v * root)) : x;
      for (let r = 0; r < rows; r++) {
        for (let a = 0; a < width; a++) {
          const term = (m: number) => (style.scale === 'scores' ? f(f(g(r, m) * c) * xs[m * width + a]) : f(g(r, m) * xs[m * width + a]));
          const total = sum(inner, term, style.order);
          out[start + r * width + a] = style.scale === 'after' ? f(total * c) : style.scale === 'split' ? f(total * root) : total;
        }
      }
    }
  }

  return { softmaxBackward, scaledDotProductAttentionBackward };
}

/** Each one correct, each written otherwise than the reference (two-pass softmax, D over the keys, dS factored, the scale after the products, sums forward). */
export const BACKWARD_STYLES: readonly BackwardStyle[] = [
  // FlashAttention-2's backward: base-2 online softmax recomputed, D = rowsum(dOut ⊙ O), Q and K pre-scaled.
  { name: 'flash_rowsum_output_base2', base2: true, pass: 'online', order: 'pairwise', rowSum: 'output', scale: 'operands', jacobian: 'expanded' },
  { name: 'log_sum_exp_jacobian_matrix', base2: false, pass: 'log_sum_exp', order: 'reversed', rowSum: 'probabilities', scale: 'scores', jacobian: 'matrix' },
  { name: 'tiled_split_scale_base2', base2: true, pass: 'tiled', order: 'pairwise', rowSum: 'output', scale: 'split', jacobian: 'factored' },
  { name: 'online_reversed_expanded', base2: false, pass: 'online', order: 'reversed', rowSum: 'output', scale: 'after', jacobian: 'expanded' },
  { name: 'deferred_pairwise_matrix', base2: false, pass: 'two_pass', deferred: true, order: 'pairwise', rowSum: 'probabilities', scale: 'operands', jacobian: 'matrix' },
  { name: 'two_pass_forward', base2: false, pass: 'two_pass', order: 'forward', rowSum: 'probabilities', scale: 'after', jacobian: 'factored' },
];
