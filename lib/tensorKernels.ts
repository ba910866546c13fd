/**
 * Pure loops over contiguous row-major typed arrays. Callers (lib/tensor.ts) validate shapes,
 * pick the output dtype and allocate `out`; nothing here checks or throws.
 *
 * Each op is chosen by a string code switched on outside the element loop, so the loops stay
 * free of closures and calls and V8 can compile them to tight machine code.
 */
import { broadcastStrides, shapeSize, stridesOf } from './shape';

export type Values = Float32Array | Float64Array | Uint8Array;
export type BinaryOp = 'add' | 'sub' | 'mul' | 'div' | 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' | 'and' | 'or';
export type UnaryOp = 'neg' | 'exp' | 'log' | 'sqrt' | 'abs' | 'not' | 'isnan' | 'bool' | 'copy';
export type ReduceOp = 'max' | 'min' | 'sum' | 'mean';

/**
 * out[o..o+n) = a[ia + t*sa] op b[ib + t*sb]; a stride of 0 repeats a broadcast element.
 * Comparisons store +(x < y) rather than `x < y ? 1 : 0`: branch-free, ~4× faster on noisy data.
 */
function binaryRow(op: BinaryOp, a: Values, ia: number, sa: number, b: Values, ib: number, sb: number, out: Values, o: number, n: number): void {
  const end = o + n;
  switch (op) {
    case 'add': for (; o < end; o++, ia += sa, ib += sb) out[o] = a[ia] + b[ib]; return;
    case 'sub': for (; o < end; o++, ia += sa, ib += sb) out[o] = a[ia] - b[ib]; return;
    case 'mul': for (; o < end; o++, ia += sa, ib += sb) out[o] = a[ia] * b[ib]; return;
    case 'div': for (; o < end; o++, ia += sa, ib += sb) out[o] = a[ia] / b[ib]; return;
    case 'eq': for (; o < end; o++, ia += sa, ib += sb) out[o] = +(a[ia] === b[ib]); return;
    case 'ne': for (; o < end; o++, ia += sa, ib += sb) out[o] = +(a[ia] !== b[ib]); return;
    case 'lt': for (; o < end; o++, ia += sa, ib += sb) out[o] = +(a[ia] < b[ib]); return;
    case 'le': for (; o < end; o++, ia += sa, ib += sb) out[o] = +(a[ia] <= b[ib]); return;
    case 'gt': for (; o < end; o++, ia += sa, ib += sb) out[o] = +(a[ia] > b[ib]); return;
    case 'ge': for (; o < end; o++, ia += sa, ib += sb) out[o] = +(a[ia] >= b[ib]); return;
    // NaN counts as true, as in torch: only an exact zero is false. Bitwise, not && / ||, so the
    // loop has no data-dependent branch.
    case 'and': for (; o < end; o++, ia += sa, ib += sb) out[o] = +(a[ia] !== 0) & +(b[ib] !== 0); return;
    case 'or': for (; o < end; o++, ia += sa, ib += sb) out[o] = +(a[ia] !== 0) | +(b[ib] !== 0); return;
  }
}

/** Broadcasting elementwise a op b into out (whose shape is the broadcast of both shapes). */
export function binaryKernel(op: BinaryOp, a: Values, aShape: readonly number[], b: Values, bShape: readonly number[], outShape: readonly number[], out: Values): Values {
  const n = out.length;
  if (n === 0) return out;
  // An operand with as many elements as the output has the same row-major layout as it.
  if (a.length === n && b.length === n) binaryRow(op, a, 0, 1, b, 0, 1, out, 0, n);
  else if (a.length === n && b.length === 1) binaryRow(op, a, 0, 1, b, 0, 0, out, 0, n);
  else if (a.length === 1 && b.length === n) binaryRow(op, a, 0, 0, b, 0, 1, out, 0, n);
  else {
    const nd = outShape.length;
    const sa = broadcastStrides(aShape, outShape);
    const sb = broadcastStrides(bShape, outShape);
    const row = outShape[nd - 1];
    const index = new Array<number>(nd).fill(0);
    let ia = 0;
    let ib = 0;
    for (let o = 0; o < n; o += row) {
      binaryRow(op, a, ia, sa[nd - 1], b, ib, sb[nd - 1], out, o, row);
      // Odometer over every dim but the last: step the innermost, carry on wrap.
      for (let d = nd - 2; d >= 0; d--) {
        ia += sa[d];
        ib += sb[d];
        if (++index[d] < outShape[d]) break;
        ia -= sa[d] * outShape[d];
        ib -= sb[d] * outShape[d];
        index[d] = 0;
      }
    }
  }
  return out;
}

/** Copies values of `shape` broadcast to `outShape` into out; used by where/maskedFill. */
export function expandKernel(values: Values, shape: readonly number[], outShape: readonly number[], out: Values): Values {
  const n = out.length;
  if (n === 0) return out;
  if (values.length === n) {
    out.set(values);
    return out;
  }
  const nd = outShape.length;
  const strides = broadcastStrides(shape, outShape);
  const row = outShape[nd - 1];
  const rowStride = strides[nd - 1];
  const index = new Array<number>(nd).fill(0);
  let i = 0;
  for (let o = 0; o < n; o += row) {
    if (rowStride === 0) out.fill(values[i], o, o + row);
    else out.set(values.subarray(i, i + row), o);
    for (let d = nd - 2; d >= 0; d--) {
      i += strides[d];
      if (++index[d] < outShape[d]) break;
      i -= strides[d] * outShape[d];
      index[d] = 0;
    }
  }
  return out;
}

/** out[i] = cond[i] ? a[i] : b[i], all three already the output's length. */
export function selectKernel(cond: Values, a: Values, b: Values, out: Values): Values {
  for (let i = 0; i < out.length; i++) out[i] = cond[i] !== 0 ? a[i] : b[i];
  return out;
}

/** Elementwise map; `bool` and `not` treat NaN as true (nonzero), as torch does. */
export function unaryKernel(op: UnaryOp, v: Values, out: Values): Values {
  const n = v.length;
  switch (op) {
    case 'neg': for (let i = 0; i < n; i++) out[i] = -v[i]; break;
    case 'exp': for (let i = 0; i < n; i++) out[i] = Math.exp(v[i]); break;
    case 'log': for (let i = 0; i < n; i++) out[i] = Math.log(v[i]); break;
    case 'sqrt': for (let i = 0; i < n; i++) out[i] = Math.sqrt(v[i]); break;
    case 'abs': for (let i = 0; i < n; i++) out[i] = Math.abs(v[i]); break;
    case 'not': for (let i = 0; i < n; i++) out[i] = +(v[i] === 0); break;
    case 'isnan': for (let i = 0; i < n; i++) out[i] = +(v[i] !== v[i]); break;
    case 'bool': for (let i = 0; i < n; i++) out[i] = +(v[i] !== 0); break;
    case 'copy': out.set(v); break;
  }
  return out;
}

/**
 * Reduces the middle axis of values viewed as [outer, axis, inner] into out ([outer, inner]).
 * Accumulates in float64 whatever the output dtype. max/min need axis >= 1 and propagate NaN.
 */
export function reduceKernel(op: ReduceOp, values: Values, outer: number, axis: number, inner: number, out: Values): Values {
  const acc = new Float64Array(outer * inner);
  for (let o = 0; o < outer; o++) {
    const base = o * axis * inner;
    const dst = o * inner;
    if (op === 'sum' || op === 'mean') {
      for (let a = 0; a < axis; a++) {
        const src = base + a * inner;
        for (let i = 0; i < inner; i++) acc[dst + i] += values[src + i];
      }
      if (op === 'mean') for (let i = 0; i < inner; i++) acc[dst + i] /= axis;
      continue;
    }
    for (let i = 0; i < inner; i++) acc[dst + i] = values[base + i];
    for (let a = 1; a < axis; a++) {
      const src = base + a * inner;
      // Once the running value is NaN no comparison replaces it; a NaN element always does.
      if (op === 'max') {
        for (let i = 0; i < inner; i++) {
          const v = values[src + i];
          if (v > acc[dst + i] || v !== v) acc[dst + i] = v;
        }
      } else {
        for (let i = 0; i < inner; i++) {
          const v = values[src + i];
          if (v < acc[dst + i] || v !== v) acc[dst + i] = v;
        }
      }
    }
  }
  out.set(acc);
  return out;
}

/** out = values (of `shape`) with dims reordered so out dim d is input dim perm[d]. */
export function permuteKernel(values: Values, shape: readonly number[], perm: readonly number[], out: Values): Values {
  const n = values.length;
  const nd = shape.length;
  if (n === 0) return out;
  if (nd === 0) {
    out.set(values);
    return out;
  }
  const inStrides = stridesOf(shape);
  const outShape = perm.map((p) => shape[p]);
  const strides = perm.map((p) => inStrides[p]);
  const row = outShape[nd - 1];
  const rowStride = strides[nd - 1];
  const index = new Array<number>(nd).fill(0);
  let src = 0;
  for (let o = 0; o < n; o += row) {
    for (let j = 0, s = src; j < row; j++, s += rowStride) out[o + j] = values[s];
    for (let d = nd - 2; d >= 0; d--) {
      src += strides[d];
      if (++index[d] < outShape[d]) break;
      src -= strides[d] * outShape[d];
      index[d] = 0;
    }
  }
  return out;
}

/**
 * C[i, j] for rows i0..n and columns j0..m that the 4×4 tiles of matmulBlock did not cover:
 * i-k-j order with a float64 row accumulator.
 */
function matmulEdge(a: Float64Array, aOff: number, b: Float64Array, bOff: number, c: Float64Array, cOff: number, i0: number, j0: number, n: number, k: number, m: number, row: Float64Array): void {
  for (let i = 0; i < n; i++) {
    const from = i < i0 ? j0 : 0;
    if (from === m) continue;
    row.fill(0, from, m);
    for (let p = 0; p < k; p++) {
      const aip = a[aOff + i * k + p];
      const bRow = bOff + p * m;
      for (let j = from; j < m; j++) row[j] += aip * b[bRow + j];
    }
    for (let j = from; j < m; j++) c[cOff + i * m + j] = row[j];
  }
}

/**
 * One [n,k] @ [k,m] product. The bulk is done in 4×4 output tiles held in 16 locals: each step
 * of the k loop loads 4 values of A and 4 of B for 16 multiply-adds, about 1.5× faster in V8 than
 * i-k-j over a row accumulator, which is kept for the ragged edge.
 */
function matmulBlock(a: Float64Array, aOff: number, b: Float64Array, bOff: number, c: Float64Array, cOff: number, n: number, k: number, m: number, row: Float64Array): void {
  const n4 = n - (n % 4);
  const m4 = m - (m % 4);
  for (let i = 0; i < n4; i += 4) {
    const r0 = aOff + i * k, r1 = r0 + k, r2 = r1 + k, r3 = r2 + k;
    for (let j = 0; j < m4; j += 4) {
      let c00 = 0, c01 = 0, c02 = 0, c03 = 0, c10 = 0, c11 = 0, c12 = 0, c13 = 0;
      let c20 = 0, c21 = 0, c22 = 0, c23 = 0, c30 = 0, c31 = 0, c32 = 0, c33 = 0;
      for (let p = 0, bp = bOff + j; p < k; p++, bp += m) {
        const b0 = b[bp], b1 = b[bp + 1], b2 = b[bp + 2], b3 = b[bp + 3];
        const a0 = a[r0 + p], a1 = a[r1 + p], a2 = a[r2 + p], a3 = a[r3 + p];
        c00 += a0 * b0; c01 += a0 * b1; c02 += a0 * b2; c03 += a0 * b3;
        c10 += a1 * b0; c11 += a1 * b1; c12 += a1 * b2; c13 += a1 * b3;
        c20 += a2 * b0; c21 += a2 * b1; c22 += a2 * b2; c23 += a2 * b3;
        c30 += a3 * b0; c31 += a3 * b1; c32 += a3 * b2; c33 += a3 * b3;
      }
      let o = cOff + i * m + j;
      c[o] = c00; c[o + 1] = c01; c[o + 2] = c02; c[o + 3] = c03; o += m;
      c[o] = c10; c[o + 1] = c11; c[o + 2] = c12; c[o + 3] = c13; o += m;
      c[o] = c20; c[o + 1] = c21; c[o + 2] = c22; c[o + 3] = c23; o += m;
      c[o] = c30; c[o + 1] = c31; c[o + 2] = c32; c[o + 3] = c33;
    }
  }
  matmulEdge(a, aOff, b, bOff, c, cOff, n4, m4, n, k, m, row);
}

/**
 * Batched a [..., n, k] @ b [..., k, m] into out [...batch, n, m]; the leading dims of a and b
 * broadcast to outShape's. Inputs are widened to float64 once so the hot loops only ever see one
 * array type (mixed Float32Array/Float64Array access sites run ~40% slower in V8).
 */
export function matmulKernel(a: Values, aShape: readonly number[], b: Values, bShape: readonly number[], outShape: readonly number[], out: Values): Values {
  const nd = outShape.length;
  const [n, m, k] = [outShape[nd - 2], outShape[nd - 1], aShape[aShape.length - 1]];
  const batchShape = outShape.slice(0, nd - 2);
  const batches = shapeSize(batchShape);
  if (batches * n * m === 0) return out;
  const sa = broadcastStrides(aShape.slice(0, -2), batchShape).map((s) => s * n * k);
  const sb = broadcastStrides(bShape.slice(0, -2), batchShape).map((s) => s * k * m);
  const a64 = a instanceof Float64Array ? a : new Float64Array(a);
  const b64 = b instanceof Float64Array ? b : new Float64Array(b);
  const c64 = out instanceof Float64Array ? out : new Float64Array(out.length);
  const row = new Float64Array(m);
  const index = new Array<number>(batchShape.length).fill(0);
  let aOff = 0;
  let bOff = 0;
  for (let batch = 0; batch < batches; batch++) {
    matmulBlock(a64, aOff, b64, bOff, c64, batch * n * m, n, k, m, row);
    for (let d = batchShape.length - 1; d >= 0; d--) {
      aOff += sa[d];
      bOff += sb[d];
      if (++index[d] < batchShape[d]) break;
      aOff -= sa[d] * batchShape[d];
      bOff -= sb[d] * batchShape[d];
      index[d] = 0;
    }
  }
  if (c64 !== out) out.set(c64);
  return out;
}
