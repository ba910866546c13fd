/**
 * Correct, by recursion over the leading dims on nested arrays (Tensor.toArray): a function calls
 * itself on each sub-array until it holds one matrix, as students who think of the batch dims as
 * "more of the same" write it. Float64, returns nested results flattened. It must get full marks.
 * The `// audit:` lines name the part each line computes (see tensor_methods.ts).
 */
import { Tensor, type NestedArray } from '../../../lib/tensor';

type Matrix = number[][];

// audit: axis
function softmaxNested(x: NestedArray, depth: number): NestedArray {
  if (depth > 0) return (x as NestedArray[]).map((sub) => softmaxNested(sub, depth - 1));
  const row = x as number[];
  // audit: max
  const max = Math.max(...row);
  // audit: exp
  const e = row.map((v) => Math.exp(v - max));
  // audit: sum
  const sum = e.reduce((a, b) => a + b, 0);
  // audit: normalise
  return e.map((v) => v / sum);
}

// audit: axis
function moveLast(x: Tensor, axis: number): Tensor {
  return axis === x.ndim - 1 ? x : x.transpose(axis, -1);
}

export function softmax(x: Tensor, dim: number): Tensor {
  // audit: axis
  const axis = dim < 0 ? dim + x.ndim : dim;
  const moved = moveLast(x.astype('float64'), axis);
  const done = Tensor.fromNested(softmaxNested(moved.toArray(), moved.ndim - 1), 'float64');
  return moveLast(done, axis);
}

/** One matrix of attention: q [nQ][dK], k [nK][dK], v [nK][dV], allowed [nQ][nK] (true = may attend). */
function attend(q: Matrix, k: Matrix, v: Matrix, allowed: boolean[][] | undefined): Matrix {
  // audit: scale
  const scale = Math.sqrt(q[0].length);
  return q.map((qi, i) => {
    const scores = k.map((kj, j) => {
      // audit: mask
      if (allowed && !allowed[allowed.length === 1 ? 0 : i][allowed[0].length === 1 ? 0 : j]) return -Infinity;
      // audit: scores
      return qi.reduce((acc, x, c) => acc + x * kj[c], 0) / scale;
    });
    // audit: max
    const max = Math.max(...scores);
    // audit: empty
    if (max === -Infinity) return v[0].map(() => 0);
    // audit: exp
    const e = scores.map((s) => Math.exp(s - max));
    // audit: sum
    const sum = e.reduce((a, b) => a + b, 0);
    // audit: values
    return v[0].map((_, c) => e.reduce((acc, w, j) => acc + (w / sum) * v[j][c], 0)); // audit: normalise, values
  });
}

/** Recurses over the leading dims of q, k, v together; the mask recurses only where it has the dim. */
// audit: batch
function recurse(q: NestedArray, k: NestedArray, v: NestedArray, mask: NestedArray | undefined, depth: number, maskDepth: number): NestedArray {
  if (depth === 0) return attend(q as Matrix, k as Matrix, v as Matrix, mask as boolean[][] | undefined); // audit: values
  return (q as NestedArray[]).map((qb, b) => {
    // audit: mask
    const own = mask === undefined ? undefined : maskDepth < depth ? mask : (mask as NestedArray[])[(mask as NestedArray[]).length === 1 ? 0 : b];
    const next = mask === undefined || maskDepth < depth ? maskDepth : maskDepth - 1;
    return recurse(qb, (k as NestedArray[])[b], (v as NestedArray[])[b], own, depth - 1, next); // audit: batch
  });
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Tensor {
  // audit: mask
  const nested = mask && ((mask.ndim < 2 ? mask.reshape(1, ...mask.shape) : mask).astype('bool').toArray() as NestedArray); // [n_k]: one row for every query
  // audit: shape
  const depth = Q.ndim - 2;
  const out = recurse(Q.toArray(), K.toArray(), V.toArray(), nested, depth, mask ? Math.max(mask.ndim, 2) - 2 : 0);
  // audit: output
  return Tensor.fromNested(out, 'float64');
}

export function causalMask(seqLen: number): Tensor {
  // audit: causal
  const rows = Array.from({ length: seqLen }, (_, i) => Array.from({ length: seqLen }, (__, j) => j <= i));
  return Tensor.fromNested(rows, 'bool');
}

/** x [...lead, seq, d] → per-entry multi-head attention, recursing over the lead dims. */
// audit: mhsa_shape
function multiHeadNested(x: Tensor, w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor }, numHeads: number, mask?: Tensor): Tensor {
  if (x.ndim > 2) {
    const parts = Array.from({ length: x.shape[0] }, (_, b) => {
      const per = x.size / x.shape[0];
      return multiHeadNested(new Tensor(x.data.slice(b * per, (b + 1) * per), x.shape.slice(1)), w, numHeads, mask);
    });
    return Tensor.fromNested(parts.map((p) => p.toArray()), 'float64');
  }
  // audit: mhsa_shape
  const [seq, d] = x.shape;
  const dHead = d / numHeads;
  // audit: projection
  const project = (p: Tensor) => x.astype('float64').matmul(p.transpose(0, 1));
  // audit: split
  const heads = (t: Tensor) => t.reshape(seq, numHeads, dHead).transpose(0, 1);
  const attended = scaledDotProductAttention(heads(project(w.qProj)), heads(project(w.kProj)), heads(project(w.vProj)), mask); // audit: projection, split, heads
  // audit: merge
  const merged = attended.transpose(0, 1).reshape(seq, d);
  // audit: oproj
  return merged.matmul(w.oProj.transpose(0, 1));
}

export function multiHeadSelfAttention(
  x: Tensor,
  w: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  numHeads: number,
  mask?: Tensor,
): Tensor {
  return multiHeadNested(x, w, numHeads, mask);
}
