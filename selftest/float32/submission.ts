/**
 * A whole submission written in float32 in one style (kernels.ts): where the 1/√d_k scale goes,
 * how multi-head attention associates its products. Each is correct; the fairness self-test holds
 * the graded cases to giving every one full marks.
 */
import type { AttentionWeights, Submission } from '../../adapters';
import { broadcastOffset } from '../../lib/compare';
import { unravelIndex } from '../../lib/format';
import { Tensor } from '../../lib/tensor';
import { dot, f, softmaxRow, sum, type RowStyle } from './kernels';

export interface Style extends RowStyle {
  name: string;
  /**
   * Where 1/√d_k (and log₂e, in base 2) goes: on each score, dividing each score by √d_k, on Q
   * before QKᵀ, or its square root on both Q and K (PyTorch's math backend).
   */
  scale: 'scores' | 'divide' | 'query' | 'split';
  /** Multi-head: project then attend (`project`), or multiply the weights first: x (W_qᵀ W_k) xᵀ for the scores, (P x)(W_vᵀ W_oᵀ) for the output. */
  heads: 'project' | 'weights_first';
}

const LOG2E = f(Math.LOG2E);

/** Attention of one batch entry on flat float32 rows: scores scaled as the style says, then its softmax pass over V. */
function attend(style: Style, q: ArrayLike<number>, k: ArrayLike<number>, v: ArrayLike<number>, [nQ, nK, d, dV]: number[], scale: number, allowed: (i: number, j: number) => boolean): Float32Array {
  const c = style.base2 ? f(f(scale) * LOG2E) : f(scale);
  const root = f(Math.sqrt(c));
  const qs = style.scale === 'query' ? Float32Array.from(q, (x) => f(x * c)) : style.scale === 'split' ? Float32Array.from(q, (x) => f(x * root)) : q;
  const ks = style.scale === 'split' ? Float32Array.from(k, (x) => f(x * root)) : k;
  const out = new Float32Array(nQ * dV);
  const s = new Float32Array(nK);
  for (let i = 0; i < nQ; i++) {
    for (let j = 0; j < nK; j++) {
      const raw = dot(d, (t) => qs[i * d + t], (t) => ks[j * d + t], style.order);
      const scaled = style.scale === 'scores' ? f(raw * c) : style.scale === 'divide' ? f(raw / f(1 / scale)) : raw;
      s[j] = !allowed(i, j) ? -Infinity : style.scale === 'divide' && style.base2 ? f(scaled * LOG2E) : scaled;
    }
    out.set(softmaxRow(s, (j, t) => v[j * dV + t], dV, style), i * dV);
  }
  return out;
}

/** The leading dims of Q, K, V and the mask broadcast together, with each one's offset per batch entry. */
function batches(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  const leads = [Q, K, V, ...(mask ? [mask] : [])].map((t) => t.shape.slice(0, -2));
  const n = Math.max(...leads.map((l) => l.length));
  const lead = Array.from({ length: n }, (_, d) => Math.max(1, ...leads.map((l) => l[l.length - n + d] ?? 1)));
  const count = lead.reduce((a, b) => a * b, 1);
  const offset = (t: Tensor, index: number[]) => (t.ndim === 2 ? 0 : broadcastOffset(t.shape.slice(0, -2), index));
  return { lead, count, offset };
}

export function submissionOf(style: Style): Submission {
  function softmax(x: Tensor, dim: number): Tensor {
    const axis = dim < 0 ? dim + x.ndim : dim;
    const n = x.shape[axis];
    const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    const out = new Float32Array(x.size);
    for (let o = 0; o < x.size / (n * inner); o++) {
      for (let i = 0; i < inner; i++) {
        const at = (j: number) => (o * n + j) * inner + i;
        const s = Float32Array.from({ length: n }, (_, j) => (style.base2 ? f(f(x.data[at(j)]) * LOG2E) : f(x.data[at(j)])));
        const p = softmaxRow(s, (j, c) => Number(j === c), n, style);
        for (let j = 0; j < n; j++) out[at(j)] = p[j];
      }
    }
    return new Tensor(out, x.shape);
  }

  function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
    const [nQ, d] = Q.shape.slice(-2);
    const [nK, dV] = V.shape.slice(-2);
    const { lead, count, offset } = batches(Q, K, V, mask);
    const out = new Float32Array(count * nQ * dV);
    for (let b = 0; b < count; b++) {
      const index = unravelIndex(b, lead);
      const rows = (t: Tensor, n: number, w: number) => t.data.subarray(offset(t, index) * n * w, (offset(t, index) + 1) * n * w);
      const allowed = (i: number, j: number) => !mask || mask.data[broadcastOffset(mask.shape, [...index, i, j])] !== 0;
      out.set(attend(style, rows(Q, nQ, d), rows(K, nK, d), rows(V, nK, dV), [nQ, nK, d, dV], 1 / Math.sqrt(d), allowed), b * nQ * dV);
    }
    return new Tensor(out, [...lead, nQ, dV]);
  }

  function causalMask(seqLen: number): Tensor {
    return new Tensor(Uint8Array.from({ length: seqLen * seqLen }, (_, i) => Number(i % seqLen <= Math.floor(i / seqLen))), [seqLen, seqLen]);
  }

  /** A [rows, n] · B [n, cols] in float32, B read through `b(t, col)`. */
  const matmul = (a: ArrayLike<number>, rows: number, n: number, cols: number, b: (t: number, col: number) => number) =>
    Float32Array.from({ length: rows * cols }, (_, i) => dot(n, (t) => a[Math.floor(i / cols) * n + t], (t) => b(t, i % cols), style.order));

  function multiHeadSelfAttention(x: Tensor, w: AttentionWeights, numHeads: number, mask?: Tensor): Tensor {
    const [seq, D] = x.shape.slice(-2);
    const dH = D / numHeads;
    const entries = x.size / (seq * D);
    const y = new Float32Array(x.size);
    const allowed = (i: number, j: number) => !mask || mask.data[broadcastOffset(mask.shape, [i, j])] !== 0;
    const W = (t: Tensor) => (row: number, col: number) => t.data[row * D + col];
    for (let b = 0; b < entries; b++) {
      const xb = x.data.subarray(b * seq * D, (b + 1) * seq * D);
      const parts: Float32Array[] = [];
      for (let h = 0; h < numHeads; h++) {
        if (style.heads === 'weights_first') {
          // Scores x (W_qᵀ W_k) xᵀ: the weights multiplied first; output (P x)(W_vᵀ W_oᵀ).
          const A = matmul(Float32Array.from({ length: D * dH }, (_, i) => W(w.qProj)(h * dH + (i % dH), Math.floor(i / dH))), D, dH, D, (t, col) => W(w.kProj)(h * dH + t, col));
          const M = matmul(Float32Array.from({ length: D * dH }, (_, i) => W(w.vProj)(h * dH + (i % dH), Math.floor(i / dH))), D, dH, D, (t, col) => W(w.oProj)(col, h * dH + t));
          const px = attend(style, matmul(xb, seq, D, D, (t, col) => A[t * D + col]), xb, xb, [seq, seq, D, D], 1 / Math.sqrt(dH), allowed);
          parts.push(matmul(px, seq, D, D, (t, col) => M[t * D + col]));
        } else {
          const proj = (p: Tensor) => matmul(xb, seq, D, dH, (t, col) => W(p)(h * dH + col, t));
          const head = attend(style, proj(w.qProj), proj(w.kProj), proj(w.vProj), [seq, seq, dH, dH], 1 / Math.sqrt(dH), allowed);
          // Each head's share of the output projection, summed over heads below.
          parts.push(matmul(head, seq, dH, D, (t, col) => W(w.oProj)(col, h * dH + t)));
        }
      }
      for (let i = 0; i < seq * D; i++) y[b * seq * D + i] = sum(numHeads, (h) => parts[h][i], style.order);
    }
    return new Tensor(y, x.shape);
  }

  return { softmax, scaledDotProductAttention, causalMask, multiHeadSelfAttention };
}
