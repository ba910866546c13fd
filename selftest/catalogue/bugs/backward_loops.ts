/**
 * The gradients part, correct, in float32 loops over flat arrays (every intermediate rounded with
 * Math.fround): softmax's Jacobian applied slice by slice along any dim, and attention's backward
 * query by query, each batch entry at its offset, the mask broadcast by index. It must get full marks.
 * The forward pass is base.ts's; the loop mutants of the backward re-export it and replace one function.
 */
import { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

const f = Math.fround;
const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

export function softmaxBackward(y: Tensor, dy: Tensor, dim: number): Tensor {
  const axis = dim < 0 ? dim + y.ndim : dim;
  const n = y.shape[axis];
  const inner = size(y.shape.slice(axis + 1));
  const out = new Float32Array(y.size);
  for (let o = 0; o < y.size / (n * inner); o++) {
    for (let i = 0; i < inner; i++) {
      const base = o * n * inner + i;
      let dot = 0;
      for (let j = 0; j < n; j++) dot = f(dot + f(y.data[base + j * inner] * dy.data[base + j * inner]));
      for (let j = 0; j < n; j++) out[base + j * inner] = f(y.data[base + j * inner] * f(dy.data[base + j * inner] - dot));
    }
  }
  return new Tensor(out, y.shape);
}

/** Whether query i of batch entry b (flat over `batch`) may see key j, the mask broadcast from the right. */
export function allowed(mask: Tensor | undefined, batch: readonly number[], b: number, i: number, j: number): boolean {
  if (!mask) return true;
  const index: number[] = [];
  for (let d = batch.length - 1; d >= 0; d--) {
    index.unshift(b % batch[d]);
    b = Math.floor(b / batch[d]);
  }
  index.push(i, j);
  let offset = 0;
  const lead = index.length - mask.ndim;
  for (let d = 0; d < mask.ndim; d++) offset = offset * mask.shape[d] + (mask.shape[d] === 1 ? 0 : index[lead + d]);
  return mask.data[offset] !== 0;
}

/** Query i's probabilities over the keys of entry b (zeros when every key is masked). */
export function probabilityRow(Q: Tensor, K: Tensor, mask: Tensor | undefined, b: number, i: number): Float32Array {
  const [nQ, d] = Q.shape.slice(-2);
  const nK = K.shape[K.ndim - 2];
  const scale = f(1 / Math.sqrt(d));
  const p = new Float32Array(nK);
  let max = -Infinity;
  for (let j = 0; j < nK; j++) {
    if (!allowed(mask, Q.shape.slice(0, -2), b, i, j)) {
      p[j] = -Infinity;
      continue;
    }
    let s = 0;
    for (let c = 0; c < d; c++) s = f(s + f(Q.data[(b * nQ + i) * d + c] * K.data[(b * nK + j) * d + c]));
    p[j] = f(s * scale);
    max = Math.max(max, p[j]);
  }
  if (max === -Infinity) return p.fill(0);
  let sum = 0;
  for (let j = 0; j < nK; j++) sum = f(sum + (p[j] = f(Math.exp(f(p[j] - max)))));
  for (let j = 0; j < nK; j++) p[j] = f(p[j] / sum);
  return p;
}

export function scaledDotProductAttentionBackward(Q: Tensor, K: Tensor, V: Tensor, dOut: Tensor, mask?: Tensor) {
  const [nQ, d] = Q.shape.slice(-2);
  const [nK, dV] = V.shape.slice(-2);
  const scale = f(1 / Math.sqrt(d));
  const [gQ, gK, gV] = [new Float32Array(Q.size), new Float32Array(K.size), new Float32Array(V.size)];
  for (let b = 0; b < size(Q.shape.slice(0, -2)); b++) {
    for (let i = 0; i < nQ; i++) {
      const p = probabilityRow(Q, K, mask, b, i);
      const dP = new Float32Array(nK);
      let rowSum = 0;
      for (let j = 0; j < nK; j++) {
        for (let c = 0; c < dV; c++) dP[j] = f(dP[j] + f(dOut.data[(b * nQ + i) * dV + c] * V.data[(b * nK + j) * dV + c]));
        rowSum = f(rowSum + f(p[j] * dP[j]));
      }
      for (let j = 0; j < nK; j++) {
        const dS = f(f(p[j] * f(dP[j] - rowSum)) * scale);
        for (let c = 0; c < d; c++) {
          gQ[(b * nQ + i) * d + c] = f(gQ[(b * nQ + i) * d + c] + f(dS * K.data[(b * nK + j) * d + c]));
          gK[(b * nK + j) * d + c] = f(gK[(b * nK + j) * d + c] + f(dS * Q.data[(b * nQ + i) * d + c]));
        }
        for (let c = 0; c < dV; c++) gV[(b * nK + j) * dV + c] = f(gV[(b * nK + j) * dV + c] + f(p[j] * dOut.data[(b * nQ + i) * dV + c]));
      }
    }
  }
  return { dQ: new Tensor(gQ, Q.shape), dK: new Tensor(gK, K.shape), dV: new Tensor(gV, V.shape) };
}
