// Attention assignment — my solution. Everything with arrays.
import type { Tensor } from '../../../lib/tensor';

type Out = { shape: number[]; data: number[] };

export function causalMask(n: number): { shape: number[]; data: boolean[] } {
  const flags: boolean[] = [];
  for (let r = 0; r < n; r++) for (let col = 0; col < n; col++) flags.push(col <= r);
  return { shape: [n, n], data: flags };
}

/* does the mask let query qi look at key kj? */
function allowedAt(m: Tensor, lead: readonly number[], entry: number, qi: number, kj: number): boolean {
  const full = [...lead, 0, 0];
  const pos = full.map(() => 0);
  pos[pos.length - 2] = qi;
  pos[pos.length - 1] = kj;
  for (let d = lead.length - 1; d >= 0; d--) {
    pos[d] = entry % lead[d];
    entry = Math.floor(entry / lead[d]);
  }
  const mine = pos.slice(pos.length - m.ndim).map((v, d) => (m.shape[d] === 1 ? 0 : v));
  const flat = mine.reduce((acc, v, d) => acc * m.shape[d] + v, 0);
  return m.data[flat] === 1;
}

export function scaledDotProductAttention(query: Tensor, key: Tensor, value: Tensor, m?: Tensor): Out {
  const [rowsQ, depth] = query.shape.slice(-2);
  const [rowsK, width] = value.shape.slice(-2);
  const lead = query.shape.slice(0, -2);
  const count = lead.reduce((a, b) => a * b, 1);
  const result: number[] = [];
  for (let e = 0; e < count; e++) {
    for (let qi = 0; qi < rowsQ; qi++) {
      const ok: boolean[] = [];
      const sc: number[] = [];
      for (let kj = 0; kj < rowsK; kj++) {
        let dot = 0;
        for (let c = 0; c < depth; c++) dot += query.data[(e * rowsQ + qi) * depth + c] * key.data[(e * rowsK + kj) * depth + c];
        const scaled = dot / Math.sqrt(depth);
        sc.push(scaled);
        ok.push(m === undefined || allowedAt(m, lead, e, qi, kj));
      }
      const kept = sc.filter((_, kj) => ok[kj]);
      const top = Math.max(...kept);
      const w = sc.map((s, kj) => (ok[kj] ? Math.exp(s - top) : 0));
      const z = w.reduce((a, x) => a + x, 0);
      for (let c = 0; c < width; c++) {
        let sum = 0;
        for (let kj = 0; kj < rowsK; kj++) if (w[kj]) sum += (w[kj] / z) * value.data[(e * rowsK + kj) * width + c];
        result.push(kept.length ? sum : 0);
      }
    }
  }
  return { shape: [...lead, rowsQ, width], data: result };
}

export function softmax(t: Tensor, axisIn: number): Out {
  const dims = [...t.shape];
  const ax = (axisIn + dims.length) % dims.length;
  const step = dims.slice(ax + 1).reduce((a, b) => a * b, 1);
  const vals = Array.from(t.data);
  let s = 0;
  while (s < vals.length) {
    if (Math.floor(s / step) % dims[ax] === 0) {
      const where = Array.from({ length: dims[ax] }, (_, j) => s + j * step);
      const biggest = Math.max(...where.map((i) => vals[i]));
      const e = where.map((i) => Math.exp(vals[i] - biggest));
      const tot = e.reduce((a, b) => a + b, 0);
      where.forEach((i, j) => (vals[i] = e[j] / tot));
    }
    s++;
  }
  return { shape: dims, data: vals };
}

export function multiHeadSelfAttention(
  input: Tensor,
  weights: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  heads: number,
  m?: Tensor,
): Out {
  const [len, model] = input.shape.slice(-2);
  const per = model / heads;
  const lines = Array.from({ length: input.size / model }, (_, r) => Array.from(input.data.subarray(r * model, (r + 1) * model)));
  const project = (rows: number[][], mat: Tensor): number[][] => {
    const [outs, ins] = mat.shape;
    return rows.map((row) => Array.from({ length: outs }, (_, o) => row.reduce((acc, v, c) => acc + v * mat.data[o * ins + c], 0)));
  };
  const [qq, kk, vv] = [weights.qProj, weights.kProj, weights.vProj].map((p) => project(lines, p));
  const joined: number[][] = lines.map(() => []);
  for (let from = 0; from < lines.length; from += len) {
    for (let h = 0; h < heads; h++) {
      const take = (mat: number[][]) =>
        ({ shape: [len, per], data: mat.slice(from, from + len).flatMap((r) => r.slice(h * per, (h + 1) * per)) }) as unknown as Tensor;
      const asTensor = (mat: number[][]) => {
        const p = take(mat) as unknown as Out;
        return { shape: p.shape, data: Float64Array.from(p.data), ndim: 2, size: p.data.length } as unknown as Tensor;
      };
      const o = scaledDotProductAttention(asTensor(qq), asTensor(kk), asTensor(vv), m);
      for (let s = 0; s < len; s++) joined[from + s].push(...o.data.slice(s * per, (s + 1) * per));
    }
  }
  return { shape: [...input.shape], data: project(joined, weights.oProj).flat() };
}
