/**
 * Where two token streams share code: each fingerprint they share is a k-gram found in both;
 * k-grams found at the same offset from each other (one diagonal) and overlapping or touching are
 * one stretch of shared code. From the stretches: how many tokens of each stream they cover, the
 * longest, and a set of stretches that overlap on neither side, longest first, for the page to mark.
 *
 * The work is bounded by the fingerprints: each hash is kept at no more than OCCURRENCE_CAP places
 * per stream (fingerprints.ts), so two streams of n fingerprints give at most OCCURRENCE_CAP · n
 * matches, however repetitive they are.
 */
import type { Fingerprints } from './fingerprints';

/** Token ranges, inclusive, in a and in b. */
export interface Fragment {
  a: { from: number; to: number };
  b: { from: number; to: number };
  tokens: number;
}

export interface Shared {
  /** Tokens of the smaller side covered by shared stretches: how much code the two share. */
  tokens: number;
  /** Tokens in the longest shared stretch. */
  longest: number;
  /** Non-overlapping stretches, longest first. */
  fragments: Fragment[];
  /** Matches looked at: the work this pair cost. */
  work: number;
}

/** Indices of a stream's fingerprints ordered by hash, then position. */
export function byHash(fp: Fingerprints): Int32Array {
  const order = Int32Array.from(fp.hashes.keys());
  return order.sort((x, y) => fp.hashes[x] - fp.hashes[y] || fp.positions[x] - fp.positions[y]);
}

// Positions and diagonals fit: a stream has fewer than 2 ** 25 tokens (4 MiB of text, a few added per character at most).
const SHIFT = 2 ** 25;

/** One side of a pair: its token stream and its counted fingerprints (and their order by hash). */
export interface Side {
  ids: Int32Array;
  fp: Fingerprints;
  order: Int32Array;
}

export function sharedCode({ ids: aIds, fp: a, order: aOrder }: Side, { ids: bIds, fp: b, order: bOrder }: Side, k: number, w: number): Shared {
  const [aTokens, bTokens] = [aIds.length, bIds.length];
  // Matches (position in a, position in b) as one number, ordered by diagonal, then position in a.
  const keys: number[] = [];
  for (let i = 0, j = 0; i < aOrder.length && j < bOrder.length;) {
    const [ha, hb] = [a.hashes[aOrder[i]], b.hashes[bOrder[j]]];
    if (ha < hb) i++;
    else if (ha > hb) j++;
    else {
      let iEnd = i;
      while (iEnd < aOrder.length && a.hashes[aOrder[iEnd]] === ha) iEnd++;
      let jEnd = j;
      while (jEnd < bOrder.length && b.hashes[bOrder[jEnd]] === ha) jEnd++;
      for (let x = i; x < iEnd; x++) {
        for (let y = j; y < jEnd; y++) {
          const [pa, pb] = [a.positions[aOrder[x]], b.positions[bOrder[y]]];
          keys.push((pb - pa + SHIFT) * SHIFT + pa);
        }
      }
      [i, j] = [iEnd, jEnd];
    }
  }
  const sorted = Float64Array.from(keys).sort();
  const found: Fragment[] = [];
  let run: { diagonal: number; first: number; last: number } | undefined;
  const close = () => {
    if (!run) return;
    // A stretch's first and last w − 1 tokens may hold no selected k-gram: they are checked token by token.
    let [from, to] = [run.first, run.last + k - 1];
    const d = run.diagonal;
    for (let step = 1; step < w && from > 0 && from + d > 0 && aIds[from - 1] === bIds[from - 1 + d]; step++) from--;
    for (let step = 1; step < w && to + 1 < aTokens && to + 1 + d < bTokens && aIds[to + 1] === bIds[to + 1 + d]; step++) to++;
    found.push({ a: { from, to }, b: { from: from + d, to: to + d }, tokens: to - from + 1 });
  };
  for (const key of sorted) {
    const diagonal = Math.floor(key / SHIFT) - SHIFT;
    const pa = key % SHIFT;
    // k-grams that overlap or touch on one diagonal are one stretch of shared tokens.
    if (run && run.diagonal === diagonal && pa - run.last <= k) run.last = pa;
    else {
      close();
      run = { diagonal, first: pa, last: pa };
    }
  }
  close();
  found.sort((x, y) => y.tokens - x.tokens || x.a.from - y.a.from || x.b.from - y.b.from);

  const coveredA = new Uint8Array(aTokens);
  const coveredB = new Uint8Array(bTokens);
  for (const f of found) {
    coveredA.fill(1, f.a.from, f.a.to + 1);
    coveredB.fill(1, f.b.from, f.b.to + 1);
  }
  const count = (covered: Uint8Array) => covered.reduce((sum, x) => sum + x, 0);

  // Tiles: each stretch trimmed to what no longer one has taken on either side.
  const takenA = new Uint8Array(aTokens);
  const takenB = new Uint8Array(bTokens);
  const fragments: Fragment[] = [];
  for (const f of found) {
    let [from, to] = [f.a.from, f.a.to];
    const offset = f.b.from - f.a.from;
    while (from <= to && (takenA[from] || takenB[from + offset])) from++;
    while (to >= from && (takenA[to] || takenB[to + offset])) to--;
    if (to - from + 1 < k) continue;
    let clear = true;
    for (let p = from; p <= to && clear; p++) clear = !takenA[p] && !takenB[p + offset];
    if (!clear) continue;
    takenA.fill(1, from, to + 1);
    takenB.fill(1, from + offset, to + offset + 1);
    fragments.push({ a: { from, to }, b: { from: from + offset, to: to + offset }, tokens: to - from + 1 });
  }
  fragments.sort((x, y) => y.tokens - x.tokens || x.a.from - y.a.from);
  return {
    tokens: Math.min(count(coveredA), count(coveredB)),
    longest: found[0]?.tokens ?? 0,
    fragments,
    work: keys.length + aOrder.length + bOrder.length,
  };
}
