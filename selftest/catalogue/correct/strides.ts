/**
 * Correct, with hand-computed strides: every tensor is read through its shape's strides (0 on a
 * broadcast dim), the way a kernel over strided memory reads it, in float64. It must get full
 * marks. The `// audit:` lines name the part each line computes (see tensor_methods.ts).
 */
import { Tensor } from '../../../lib/tensor';

// audit: axis, mask, batch
function stridesOf(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length).fill(1);
  for (let d = shape.length - 2; d >= 0; d--) strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/** Strides of `shape` read as `target` (aligned on the right): 0 where it broadcasts. */
// audit: mask
function broadcastStrides(shape: readonly number[], target: readonly number[]): number[] {
  const own = stridesOf(shape);
  return target.map((_, d) => {
    const at = d - (target.length - shape.length);
    return at < 0 || shape[at] === 1 ? 0 : own[at];
  });
}

// audit: axis
export function softmax(x: Tensor, dim: number): Tensor {
  const axis = dim < 0 ? x.ndim + dim : dim;
  const strides = stridesOf(x.shape);
  const step = strides[axis];
  const n = x.shape[axis];
  const out = Float64Array.from(x.data);
  for (let start = 0; start < x.size; start++) {
    if (Math.floor(start / step) % n !== 0) continue;
    // audit: max
    let max = -Infinity;
    for (let j = 0; j < n; j++) max = Math.max(max, out[start + j * step]);
    // audit: exp
    for (let j = 0; j < n; j++) out[start + j * step] = Math.exp(out[start + j * step] - max);
    // audit: sum
    let sum = 0;
    for (let j = 0; j < n; j++) sum += out[start + j * step];
    // audit: normalise
    for (let j = 0; j < n; j++) out[start + j * step] /= sum;
  }
  return new Tensor(out, x.shape);
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  // audit: shape
  const rank = Q.ndim;
  const [nQ, dK] = [Q.shape[rank - 2], Q.shape[rank - 1]];
  const [nK, dV] = [V.shape[rank - 2], V.shape[rank - 1]];
  const full = [...Q.shape.slice(0, -2), nQ, nK];
  const entries = Q.size / (nQ * dK);
  // audit: mask
  const ms = mask ? broadcastStrides(mask.shape, full) : [];
  const batchStrides = stridesOf(full.slice(0, -2));
  // audit: output
  const out = new Float64Array(entries * nQ * dV);
  const row = new Float64Array(nK);
  // audit: batch
  for (let b = 0; b < entries; b++) {
    const [qBase, kBase, vBase] = [b * nQ * dK, b * nK * dK, b * nK * dV];
    let maskBase = 0; // audit: mask
    for (let d = 0; d < batchStrides.length; d++) maskBase += (Math.floor(b / batchStrides[d]) % full[d]) * ms[d]; // audit: mask
    for (let i = 0; i < nQ; i++) {
      let any = false; // audit: empty
      for (let j = 0; j < nK; j++) {
        // audit: mask
        const allowed = !mask || mask.data[maskBase + i * ms[rank - 2] + j * ms[rank - 1]] !== 0;
        any ||= allowed; // audit: empty
        // audit: scores
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += Q.data[qBase + i * dK + c] * K.data[kBase + j * dK + c];
        row[j] = allowed ? dot / Math.sqrt(dK) : -Infinity; // audit: mask, scale
      }
      // audit: empty
      if (!any) continue;
      // audit: max
      let max = row[0];
      for (let j = 1; j < nK; j++) if (row[j] > max) max = row[j];
      // audit: sum
      let sum = 0;
      for (let j = 0; j < nK; j++) sum += Math.exp(row[j] - max); // audit: exp, sum
      // audit: values
      for (let c = 0; c < dV; c++) {
        let acc = 0;
        for (let j = 0; j < nK; j++) acc += (Math.exp(row[j] - max) / sum) * V.data[vBase + j * dV + c]; // audit: exp, normalise, values
        out[(b * nQ + i) * dV + c] = acc; // audit: output
      }
    }
  }
  // audit: output
  return new Tensor(out, [...full.slice(0, -1), dV]);
}

export function causalMask(seqLen: number): Tensor {
  // audit: causal
  return new Tensor(Uint8Array.from({ length: seqLen * seqLen }, (_, at) => (at % seqLen <= Math.floor(at / seqLen) ? 1 : 0)), [seqLen, seqLen]);
}

export function multiHeadSelfAttention(
  x: Tensor,
  w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  numHeads: number,
  mask?: Tensor,
): Tensor {
  // audit: mhsa_shape
  const [seq, dModel] = x.shape.slice(-2);
  const lead = x.shape.slice(0, -2);
  const dHead = dModel / numHeads;
  // audit: projection
  const project = (t: Tensor, weight: Tensor) => t.matmul(weight.transpose(0, 1));
  // audit: split
  const split = (t: Tensor) => t.reshape(...lead, seq, numHeads, dHead).permute(...lead.map((_, d) => d), lead.length + 1, lead.length, lead.length + 2);
  const q = split(project(x, w.qProj));
  const k = split(project(x, w.kProj));
  const v = split(project(x, w.vProj));
  const heads = scaledDotProductAttention(q, k, v, mask); // audit: heads
  // audit: merge
  const merged = heads.permute(...lead.map((_, d) => d), lead.length + 1, lead.length, lead.length + 2).reshape(...lead, seq, dModel);
  // audit: oproj
  return project(merged, w.oProj);
}
