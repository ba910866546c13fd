/** Matrix helpers on flat float64 arrays: what the attention in index.ts is built from. */

/** a [n, k] · bᵀ, b [m, k] → [n, m]. */
// audit: scores, projection, oproj
export function timesTransposed(a: ArrayLike<number>, b: ArrayLike<number>, n: number, m: number, k: number): Float64Array {
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      let dot = 0;
      for (let c = 0; c < k; c++) dot += a[i * k + c] * b[j * k + c];
      out[i * m + j] = dot;
    }
  }
  return out;
}

/** a [n, k] · b [k, m] → [n, m]. */
// audit: values
export function times(a: ArrayLike<number>, b: ArrayLike<number>, n: number, k: number, m: number): Float64Array {
  const out = new Float64Array(n * m);
  for (let i = 0; i < n; i++) for (let c = 0; c < k; c++) for (let j = 0; j < m; j++) out[i * m + j] += a[i * k + c] * b[c * m + j];
  return out;
}

/** The offset of entry `b` of `lead` in a tensor broadcast from `shape` (its own leading dims, right-aligned). */
// audit: mask
export function broadcastEntry(shape: readonly number[], lead: readonly number[], b: number): number {
  const own = shape.slice(0, -2);
  const per = shape.slice(-2).reduce((x, y) => x * y, 1);
  let offset = 0;
  let stride = per;
  for (let d = lead.length - 1, rest = b; d >= 0; d--) {
    const at = rest % lead[d];
    rest = Math.floor(rest / lead[d]);
    const mine = d - (lead.length - own.length);
    if (mine < 0) continue;
    if (own[mine] !== 1) offset += at * stride;
    stride *= own[mine];
  }
  return offset;
}
