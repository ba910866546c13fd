/**
 * Float32 building blocks written in orders other than the reference's, for the fairness
 * self-test: every value rounded with Math.fround as a float32 kernel would, sums forward,
 * reversed or pairwise, exp natural or base 2 (scores in log₂ units, log₂e folded into the scale),
 * and four ways through a softmax: two passes, log-sum-exp, online (running max and rescale),
 * tiled over blocks of keys (FlashAttention's merge).
 */
export const f = Math.fround;

export type Order = 'forward' | 'reversed' | 'pairwise';
export type Pass = 'two_pass' | 'log_sum_exp' | 'online' | 'tiled';

export interface RowStyle {
  order: Order;
  /** Scores arrive in log₂ units and exp is 2^x. */
  base2: boolean;
  pass: Pass;
  /** Two-pass or log-sum-exp: weight V by the unnormalised exps and divide the output once. */
  deferred?: boolean;
}

/** Σ term(i) for i < n in float32, in the given order. */
export function sum(n: number, term: (i: number) => number, order: Order): number {
  if (order === 'pairwise') {
    const half = (lo: number, hi: number): number => (hi - lo === 1 ? f(term(lo)) : f(half(lo, (lo + hi) >> 1) + half((lo + hi) >> 1, hi)));
    return n === 0 ? 0 : half(0, n);
  }
  let acc = 0;
  for (let t = 0; t < n; t++) acc = f(acc + f(term(order === 'reversed' ? n - 1 - t : t)));
  return acc;
}

export const dot = (n: number, a: (c: number) => number, b: (c: number) => number, order: Order) => sum(n, (c) => f(f(a(c)) * f(b(c))), order);

const exp = (base2: boolean, x: number) => f(base2 ? 2 ** x : Math.exp(x));
const log = (base2: boolean, x: number) => f(base2 ? Math.log2(x) : Math.log(x));

/**
 * Σ_j softmax(s)_j · value(j, c) for every c < cols, in float32 (`value` 1 where j = c gives the
 * weights themselves). s: n scores, −∞ where masked; a row with every key masked gives zeros.
 */
export function softmaxRow(s: Float32Array, value: (j: number, c: number) => number, cols: number, style: RowStyle): Float32Array {
  const n = s.length;
  const out = new Float32Array(cols);
  const keys = Array.from({ length: n }, (_, t) => (style.order === 'reversed' ? n - 1 - t : t));
  if (style.pass === 'online' || style.pass === 'tiled') {
    const block = style.pass === 'tiled' ? 4 : 1;
    let [max, l] = [-Infinity, 0];
    const acc = new Float32Array(cols);
    for (let at = 0; at < n; at += block) {
      const tile = keys.slice(at, at + block);
      const next = Math.max(max, ...tile.map((j) => s[j]));
      if (next === -Infinity) continue;
      const alpha = max === -Infinity ? 0 : exp(style.base2, f(max - next));
      const e = tile.map((j) => exp(style.base2, f(s[j] - next)));
      l = f(f(l * alpha) + sum(tile.length, (t) => e[t], style.order));
      for (let c = 0; c < cols; c++) acc[c] = f(f(acc[c] * alpha) + sum(tile.length, (t) => f(e[t] * value(tile[t], c)), style.order));
      max = next;
    }
    if (max === -Infinity) return out;
    for (let c = 0; c < cols; c++) out[c] = f(acc[c] / l);
    return out;
  }
  let max = -Infinity;
  for (const j of keys) max = Math.max(max, s[j]);
  if (max === -Infinity) return out;
  const e = Float32Array.from(s, (x) => exp(style.base2, f(x - max)));
  const l = sum(n, (j) => e[j], style.order);
  let w: Float32Array;
  if (style.pass === 'log_sum_exp') {
    const lse = f(max + log(style.base2, l));
    w = Float32Array.from(s, (x) => exp(style.base2, f(x - lse)));
  } else {
    w = style.deferred ? e : Float32Array.from(e, (x) => f(x / l));
  }
  for (let c = 0; c < cols; c++) {
    const o = sum(n, (j) => f(w[j] * value(j, c)), style.order);
    out[c] = style.deferred && style.pass === 'two_pass' ? f(o / l) : o;
  }
  return out;
}
