/**
 * Fingerprints of a token stream by winnowing (Schleimer, Wilkerson and Aiken, 2003: what MOSS and
 * Dolos do): a hash of every k tokens in a row, and in each window of w consecutive hashes the
 * smallest one. Two streams that share a run of at least k + w − 1 tokens share a fingerprint, and
 * a stream of n tokens keeps about 2n / (w + 1) of them, so what is indexed grows with the code.
 *
 * A hash that a stream repeats is kept at its first OCCURRENCE_CAP places only: a file of one
 * statement written ten thousand times has one fingerprint, not ten thousand, and two such files
 * cost what two short files cost (Dolos and MOSS likewise stop counting frequent fingerprints).
 */

/**
 * k-grams of this many tokens; winnowing keeps one per window of this many k-grams. Dolos's defaults
 * (23, 17) are for programs of hundreds of lines; on this exercise's solutions (selftest/similarity:
 * six independent ones, two copies disguised by hand and twenty disguised at random from each) these
 * left the widest margin on both sides of the threshold (k 10 … 18 and w 4 … 10 tried).
 */
export const KGRAM = 16;
export const WINDOW = 7;
/** Places kept per fingerprint and stream: more than any real solution repeats a 16-token run. */
export const OCCURRENCE_CAP = 8;

/**
 * Each token as a 32-bit number, a hash of its text: the same in every worker and run, with no
 * table to share. Two of this exercise's few thousand token texts share a number with odds of about
 * one in a thousand, and then only where both occur does a k-gram differ.
 */
export function tokenIds(tokens: readonly string[]): Int32Array<ArrayBuffer> {
  const out = new Int32Array(tokens.length);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    let h = 0x811c9dc5;
    for (let c = 0; c < token.length; c++) h = Math.imul(h ^ token.charCodeAt(c), 0x01000193);
    out[i] = mix32(h) | 0;
  }
  return out;
}

/** A 32-bit finaliser (the "lowbias32" mix): spreads small integers over the whole range. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

const BASE = 0x01000193;

/** The hash of the k tokens starting at each position (a rolling polynomial hash, then mixed). */
export function kgramHashes(ids: Int32Array, k = KGRAM): Uint32Array {
  const count = Math.max(0, ids.length - k + 1);
  const out = new Uint32Array(count);
  if (count === 0) return out;
  const value = (i: number) => mix32(ids[i] + 0x9e3779b9);
  let top = 1;
  for (let j = 1; j < k; j++) top = Math.imul(top, BASE);
  let h = 0;
  for (let j = 0; j < k; j++) h = (Math.imul(h, BASE) + value(j)) | 0;
  out[0] = mix32(h);
  for (let i = 1; i < count; i++) {
    h = (Math.imul((h - Math.imul(value(i - 1), top)) | 0, BASE) + value(i + k - 1)) | 0;
    out[i] = mix32(h);
  }
  return out;
}

export interface Fingerprints {
  /** Selected hashes, in the order of their positions. */
  hashes: Uint32Array;
  /** The token position where each one's k-gram starts. */
  positions: Int32Array;
}

/**
 * Robust winnowing: in each window of `w` k-gram hashes the smallest (the rightmost of equals), each
 * selected place once, and no hash at more than OCCURRENCE_CAP places. A stream shorter than one
 * window keeps its smallest hash.
 */
export function winnow(kgrams: Uint32Array, w = WINDOW): Fingerprints {
  const hashes: number[] = [];
  const positions: number[] = [];
  const seen = new Map<number, number>();
  const keep = (p: number) => {
    const times = seen.get(kgrams[p]) ?? 0;
    if (times >= OCCURRENCE_CAP) return;
    seen.set(kgrams[p], times + 1);
    hashes.push(kgrams[p]);
    positions.push(p);
  };
  const n = kgrams.length;
  if (n > 0 && n < w) {
    let min = 0;
    for (let i = 1; i < n; i++) if (kgrams[i] <= kgrams[min]) min = i;
    keep(min);
  }
  let min = -1;
  for (let start = 0; start + w <= n; start++) {
    const end = start + w - 1;
    if (min < start) {
      min = start;
      for (let i = start + 1; i <= end; i++) if (kgrams[i] <= kgrams[min]) min = i;
      keep(min);
    } else if (kgrams[end] <= kgrams[min]) {
      min = end;
      keep(min);
    }
  }
  return { hashes: Uint32Array.from(hashes), positions: Int32Array.from(positions) };
}

/** A key for a whole stream: equal streams get equal keys (unequal ones almost never; compare to be sure). */
export function streamKey(ids: Int32Array): string {
  let a = 0x811c9dc5;
  let b = 0x2545f491;
  for (let i = 0; i < ids.length; i++) {
    a = Math.imul(a ^ ids[i], 0x01000193);
    b = mix32(b + ids[i]);
  }
  return `${ids.length}:${a >>> 0}:${b}`;
}
