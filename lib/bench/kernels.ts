/**
 * The plain-loop baselines the tensor module is measured against: what a student writes without
 * the tensor methods, the textbook loops over row-major Float32Arrays, float64 accumulators.
 */

/** [batch, n, k] @ [batch, k, m] → [batch, n, m], the i-j-p triple loop. */
export function naiveBatchedMatmul(a: Float32Array, b: Float32Array, batch: number, n: number, k: number, m: number): Float32Array {
  const out = new Float32Array(batch * n * m);
  for (let t = 0; t < batch; t++) {
    const [aOff, bOff, cOff] = [t * n * k, t * k * m, t * n * m];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < m; j++) {
        let sum = 0;
        for (let p = 0; p < k; p++) sum += a[aOff + i * k + p] * b[bOff + p * m + j];
        out[cOff + i * m + j] = sum;
      }
    }
  }
  return out;
}

/** softmax(Q Kᵀ / √d) V for Q, K, V [batch, n, d], no mask: per query, scores, a stable softmax, the weighted sum. */
export function naiveSdpa(q: Float32Array, k: Float32Array, v: Float32Array, batch: number, n: number, d: number): Float32Array {
  const out = new Float32Array(batch * n * d);
  const scores = new Float64Array(n);
  const scale = 1 / Math.sqrt(d);
  for (let t = 0; t < batch; t++) {
    const off = t * n * d;
    for (let i = 0; i < n; i++) {
      let max = -Infinity;
      for (let j = 0; j < n; j++) {
        let dot = 0;
        for (let p = 0; p < d; p++) dot += q[off + i * d + p] * k[off + j * d + p];
        scores[j] = dot * scale;
        if (scores[j] > max) max = scores[j];
      }
      let total = 0;
      for (let j = 0; j < n; j++) total += scores[j] = Math.exp(scores[j] - max);
      for (let p = 0; p < d; p++) {
        let sum = 0;
        for (let j = 0; j < n; j++) sum += scores[j] * v[off + j * d + p];
        out[off + i * d + p] = sum / total;
      }
    }
  }
  return out;
}
