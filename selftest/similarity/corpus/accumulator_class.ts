// Another hand, another style: a small class that walks rows, with running totals spelled out
// (`total = total + x`, `i = i + 1`) and a cache of masks by length. Only the similarity self-tests
// read it (selftest/attacks/similarity.test.ts draws its rewrites on it too).
import type { Tensor } from '../../../lib/tensor';

class Rows {
  private readonly cache = new Map();

  constructor(readonly width: number) {}

  softmaxRow(values: number[], keep: boolean[]): number[] {
    let top = -Infinity;
    let i = 0;
    while (i < values.length) {
      if (keep[i] && values[i] > top) top = values[i];
      i = i + 1;
    }
    const out = new Array();
    let total = 0;
    for (let j = 0; j < values.length; j = j + 1) {
      const e = keep[j] ? Math.exp(values[j] - top) : 0;
      out.push(e);
      total = total + e;
    }
    return out.map((e: number) => (total === 0 ? 0 : e / total));
  }

  lowerTriangle(n: number): boolean[] {
    if (!this.cache.has(n)) {
      const flags = new Array();
      for (let q = 0; q < n; q = q + 1) for (let k = 0; k < n; k = k + 1) flags.push(k <= q);
      this.cache.set(n, flags);
    }
    return this.cache.get(n);
  }
}

export function causalMask(n: number): { shape: number[]; data: boolean[] } {
  return { shape: [n, n], data: new Rows(n).lowerTriangle(n) };
}

export function scaledDotProductAttention(q: Tensor, k: Tensor, v: Tensor): { shape: number[]; data: number[] } {
  const [nq, dk] = q.shape.slice(-2);
  const [nk, dv] = v.shape.slice(-2);
  const rows = new Rows(nk);
  const data = new Array();
  for (let a = 0; a < nq; a = a + 1) {
    const scores = new Array();
    for (let b = 0; b < nk; b = b + 1) {
      let dot = 0;
      for (let c = 0; c < dk; c = c + 1) dot = dot + q.data[a * dk + c] * k.data[b * dk + c];
      scores.push(dot / Math.sqrt(dk));
    }
    const p = rows.softmaxRow(scores, scores.map(() => true));
    for (let c = 0; c < dv; c = c + 1) {
      let sum = 0;
      for (let b = 0; b < nk; b = b + 1) sum = sum + p[b] * v.data[b * dv + c];
      data.push(sum);
    }
  }
  return { shape: [nq, dv], data };
}
