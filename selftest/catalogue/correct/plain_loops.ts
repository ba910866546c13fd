/**
 * Correct, in plain float64 loops over nested arrays, returning `{ shape, data: number[] }`
 * (booleans for the causal mask) instead of Tensors. It must get full marks.
 */
import type { Tensor } from '../../../lib/tensor';

interface Plain {
  shape: number[];
  data: number[];
}

export function softmax(x: Tensor, dim: number): Plain {
  const shape = [...x.shape];
  const axis = (dim + shape.length) % shape.length;
  const stride = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const data = Array.from(x.data);
  for (let start = 0; start < data.length; start++) {
    // first element of each slice along the axis
    if (Math.floor(start / stride) % shape[axis] !== 0) continue;
    const idx = Array.from({ length: shape[axis] }, (_, j) => start + j * stride);
    const max = Math.max(...idx.map((i) => data[i]));
    const exps = idx.map((i) => Math.exp(data[i] - max));
    const total = exps.reduce((a, b) => a + b, 0);
    idx.forEach((i, j) => (data[i] = exps[j] / total));
  }
  return { shape, data };
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Plain {
  const [nQ, dK] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const batchShape = Q.shape.slice(0, -2);
  const batches = batchShape.reduce((a, b) => a * b, 1);
  const data: number[] = [];
  for (let b = 0; b < batches; b++) {
    for (let i = 0; i < nQ; i++) {
      const allowed: boolean[] = [];
      const scores: number[] = [];
      for (let j = 0; j < nK; j++) {
        let s = 0;
        for (let c = 0; c < dK; c++) s += Q.data[(b * nQ + i) * dK + c] * K.data[(b * nK + j) * dK + c];
        scores.push(s / Math.sqrt(dK));
        allowed.push(mask === undefined || maskValue(mask, batchShape, b, i, j));
      }
      const live = scores.filter((_, j) => allowed[j]);
      const max = Math.max(...live);
      const weights = scores.map((s, j) => (allowed[j] ? Math.exp(s - max) : 0));
      const total = weights.reduce((a, w) => a + w, 0);
      for (let c = 0; c < dV; c++) {
        let acc = 0;
        for (let j = 0; j < nK; j++) if (weights[j]) acc += (weights[j] / total) * V.data[(b * nK + j) * dV + c];
        data.push(live.length ? acc : 0);
      }
    }
  }
  return { shape: [...batchShape, nQ, dV], data };
}

function maskValue(mask: Tensor, batchShape: readonly number[], b: number, i: number, j: number): boolean {
  const full = [...batchShape, 0, 0];
  const index = full.map(() => 0);
  index[index.length - 2] = i;
  index[index.length - 1] = j;
  for (let d = batchShape.length - 1; d >= 0; d--) {
    index[d] = b % batchShape[d];
    b = Math.floor(b / batchShape[d]);
  }
  const own = index.slice(index.length - mask.ndim).map((v, d) => (mask.shape[d] === 1 ? 0 : v));
  const offset = own.reduce((acc, v, d) => acc * mask.shape[d] + v, 0);
  return mask.data[offset] === 1;
}

export function causalMask(seqLen: number): { shape: number[]; data: boolean[] } {
  const data: boolean[] = [];
  for (let i = 0; i < seqLen; i++) for (let j = 0; j < seqLen; j++) data.push(j <= i);
  return { shape: [seqLen, seqLen], data };
}

function linear(rows: number[][], w: Tensor): number[][] {
  const [dOut, dIn] = w.shape;
  return rows.map((row) => Array.from({ length: dOut }, (_, o) => row.reduce((acc, v, c) => acc + v * w.data[o * dIn + c], 0)));
}

export function multiHeadSelfAttention(
  x: Tensor,
  w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  numHeads: number,
  mask?: Tensor,
): Plain {
  const [seq, dModel] = x.shape.slice(-2);
  const dHead = dModel / numHeads;
  const rows = Array.from({ length: x.size / dModel }, (_, r) => Array.from(x.data.subarray(r * dModel, (r + 1) * dModel)));
  const [q, k, v] = [w.qProj, w.kProj, w.vProj].map((p) => linear(rows, p));
  const concat: number[][] = rows.map(() => []);
  for (let start = 0; start < rows.length; start += seq) {
    for (let h = 0; h < numHeads; h++) {
      const pick = (m: number[][]) =>
        ({ shape: [seq, dHead], data: m.slice(start, start + seq).flatMap((r) => r.slice(h * dHead, (h + 1) * dHead)) }) as unknown as Tensor;
      const pickT = (m: number[][]) => {
        const p = pick(m) as unknown as Plain;
        return { shape: p.shape, data: Float64Array.from(p.data), ndim: 2, size: p.data.length } as unknown as Tensor;
      };
      const out = scaledDotProductAttention(pickT(q), pickT(k), pickT(v), mask);
      for (let s = 0; s < seq; s++) concat[start + s].push(...out.data.slice(s * dHead, (s + 1) * dHead));
    }
  }
  return { shape: [...x.shape], data: linear(concat, w.oProj).flat() };
}
