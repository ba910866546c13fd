/**
 * An independent float64 implementation of the graded functions, written differently from
 * the reference on purpose: plain loops over flat arrays, no tensor methods, softmax through
 * log-sum-exp over the allowed keys only, masks and batch dims broadcast by index arithmetic.
 * The self-tests require every fixture's expected output to agree with it, so a bug in the
 * reference (or in the tensor module it uses) cannot become the truth.
 */

export interface Arr {
  data: ArrayLike<number>;
  shape: readonly number[];
}

export interface Out {
  data: Float64Array;
  shape: number[];
}

const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);

export function softmax(x: Arr, dim: number): Out {
  const axis = dim < 0 ? dim + x.shape.length : dim;
  const n = x.shape[axis];
  const inner = size(x.shape.slice(axis + 1));
  const outer = size(x.shape.slice(0, axis));
  const out = new Float64Array(size(x.shape));
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const at = (j: number) => o * n * inner + j * inner + i;
      let max = -Infinity;
      for (let j = 0; j < n; j++) max = Math.max(max, x.data[at(j)]);
      let total = 0;
      for (let j = 0; j < n; j++) total += Math.exp(x.data[at(j)] - max);
      const logSumExp = max + Math.log(total);
      for (let j = 0; j < n; j++) out[at(j)] = Math.exp(x.data[at(j)] - logSumExp);
    }
  }
  return { data: out, shape: [...x.shape] };
}

/** Offset of the element of an array with `shape` that broadcasts onto `index` (right-aligned). */
function offsetOf(shape: readonly number[], index: readonly number[]): number {
  let offset = 0;
  for (let d = 0; d < shape.length; d++) {
    const i = index[index.length - shape.length + d];
    offset = offset * shape[d] + (shape[d] === 1 ? 0 : i);
  }
  return offset;
}

export function scaledDotProductAttention(q: Arr, k: Arr, v: Arr, mask?: Arr): Out {
  return attend(q, k, v, mask, 1 / Math.sqrt(q.shape[q.shape.length - 1])).output;
}

/** Attention with its scores times `inv`, and its weights [...batch, nQ, nK] (a fully masked row's stay zero). */
function attend(q: Arr, k: Arr, v: Arr, mask: Arr | undefined, inv: number): { output: Out; weights: Out } {
  const batch = q.shape.slice(0, -2);
  const [nQ, dK] = q.shape.slice(-2);
  const [nK, dV] = v.shape.slice(-2);
  const batches = size(batch);
  const out = new Float64Array(batches * nQ * dV);
  const weights = new Float64Array(batches * nQ * nK);
  const logits = new Float64Array(nK);
  const allowed = new Uint8Array(nK);
  for (let b = 0; b < batches; b++) {
    const batchIndex: number[] = [];
    for (let d = batch.length - 1, rest = b; d >= 0; d--) {
      batchIndex.unshift(rest % batch[d]);
      rest = Math.floor(rest / batch[d]);
    }
    for (let i = 0; i < nQ; i++) {
      let best = -Infinity;
      for (let j = 0; j < nK; j++) {
        allowed[j] = mask ? (mask.data[offsetOf(mask.shape, [...batchIndex, i, j])] ? 1 : 0) : 1;
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += q.data[(b * nQ + i) * dK + c] * k.data[(b * nK + j) * dK + c];
        logits[j] = dot * inv;
        if (allowed[j]) best = Math.max(best, logits[j]);
      }
      if (best === -Infinity) continue; // no allowed key: the row stays zero
      let total = 0;
      for (let j = 0; j < nK; j++) if (allowed[j]) total += Math.exp(logits[j] - best);
      const logSumExp = best + Math.log(total);
      for (let j = 0; j < nK; j++) {
        if (!allowed[j]) continue;
        const p = Math.exp(logits[j] - logSumExp);
        weights[(b * nQ + i) * nK + j] = p;
        for (let c = 0; c < dV; c++) out[(b * nQ + i) * dV + c] += p * v.data[(b * nK + j) * dV + c];
      }
    }
  }
  return { output: { data: out, shape: [...batch, nQ, dV] }, weights: { data: weights, shape: [...batch, nQ, nK] } };
}

/** Project 4's attention: the output and its weights; `scale: false` leaves out 1/√d_k, `returnWeights: false` the weights. */
export function attention(q: Arr, k: Arr, v: Arr, options: { mask?: Arr; scale?: boolean; returnWeights?: boolean } = {}): { output: Out; weights?: Out } {
  const { output, weights } = attend(q, k, v, options.mask, options.scale === false ? 1 : 1 / Math.sqrt(q.shape[q.shape.length - 1]));
  return options.returnWeights === false ? { output } : { output, weights };
}

export function causalMask(n: number): Out {
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) out[i * n + j] = 1;
  return { data: out, shape: [n, n] };
}

/** rows [r, dIn] × W [dOut, dIn]ᵀ (+ bias [dOut]) → [r, dOut] */
function linear(x: ArrayLike<number>, rows: number, w: Arr, bias?: Arr): Float64Array {
  const [dOut, dIn] = w.shape;
  const y = new Float64Array(rows * dOut);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < dOut; o++) {
      let acc = bias ? bias.data[o] : 0;
      for (let c = 0; c < dIn; c++) acc += x[r * dIn + c] * w.data[o * dIn + c];
      y[r * dOut + o] = acc;
    }
  }
  return y;
}

export function multiHeadSelfAttention(
  x: Arr,
  w: { qProj: Arr; kProj: Arr; vProj: Arr; oProj: Arr },
  numHeads: number,
  mask?: Arr,
): Out {
  const [seq, dModel] = x.shape.slice(-2);
  const batches = size(x.shape.slice(0, -2));
  const dHead = dModel / numHeads;
  const rows = batches * seq;
  const [q, k, v] = [w.qProj, w.kProj, w.vProj].map((p) => linear(x.data, rows, p));
  const concat = new Float64Array(rows * dModel);
  const head = (src: Float64Array, b: number, h: number) => {
    const part = new Float64Array(seq * dHead);
    for (let s = 0; s < seq; s++) for (let c = 0; c < dHead; c++) part[s * dHead + c] = src[(b * seq + s) * dModel + h * dHead + c];
    return { data: part, shape: [seq, dHead] };
  };
  for (let b = 0; b < batches; b++) {
    for (let h = 0; h < numHeads; h++) {
      const o = scaledDotProductAttention(head(q, b, h), head(k, b, h), head(v, b, h), mask);
      for (let s = 0; s < seq; s++) for (let c = 0; c < dHead; c++) concat[(b * seq + s) * dModel + h * dHead + c] = o.data[s * dHead + c];
    }
  }
  return { data: linear(concat, rows, w.oProj), shape: [...x.shape] };
}

interface Projections {
  qProj: Arr; qBias?: Arr; kProj: Arr; kBias?: Arr; vProj: Arr; vBias?: Arr; oProj?: Arr; oBias?: Arr;
}

/** Problems 2 and 3: biased Q, K, V projections, one head over all of d_model (scaled unless `scale` is false), no output projection. */
export function singleHeadAttention(x: Arr, w: Projections, options: { scale?: boolean; mask?: Arr } = {}): Out {
  const [seq, dModel] = x.shape.slice(-2);
  const rows = size(x.shape.slice(0, -2)) * seq;
  const lead = [...x.shape.slice(0, -2)];
  const [q, k, v] = [[w.qProj, w.qBias], [w.kProj, w.kBias], [w.vProj, w.vBias]].map(([p, b]) => ({ data: linear(x.data, rows, p!, b), shape: [...lead, seq, dModel] }));
  return attend(q, k, v, options.mask, options.scale === false ? 1 : 1 / Math.sqrt(dModel)).output;
}

/** Project 4's multi-head attention: biases on all four projections; every head's weights [...batch, heads, seq, seq]. */
export function multiHeadAttention(x: Arr, w: Projections, numHeads: number, options: { mask?: Arr } = {}): { output: Out; weights: Out } {
  const [seq, dModel] = x.shape.slice(-2);
  const batches = size(x.shape.slice(0, -2));
  const dHead = dModel / numHeads;
  const rows = batches * seq;
  const [q, k, v] = [[w.qProj, w.qBias], [w.kProj, w.kBias], [w.vProj, w.vBias]].map(([p, b]) => linear(x.data, rows, p!, b));
  const concat = new Float64Array(rows * dModel);
  const weights = new Float64Array(batches * numHeads * seq * seq);
  const head = (src: Float64Array, b: number, h: number) => {
    const part = new Float64Array(seq * dHead);
    for (let s = 0; s < seq; s++) for (let c = 0; c < dHead; c++) part[s * dHead + c] = src[(b * seq + s) * dModel + h * dHead + c];
    return { data: part, shape: [seq, dHead] };
  };
  for (let b = 0; b < batches; b++) {
    for (let h = 0; h < numHeads; h++) {
      const o = attend(head(q, b, h), head(k, b, h), head(v, b, h), options.mask, 1 / Math.sqrt(dHead));
      weights.set(o.weights.data, (b * numHeads + h) * seq * seq);
      for (let s = 0; s < seq; s++) for (let c = 0; c < dHead; c++) concat[(b * seq + s) * dModel + h * dHead + c] = o.output.data[s * dHead + c];
    }
  }
  return {
    output: { data: linear(concat, rows, w.oProj!, w.oBias), shape: [...x.shape] },
    weights: { data: weights, shape: [...x.shape.slice(0, -2), numHeads, seq, seq] },
  };
}
