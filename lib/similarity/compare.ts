/**
 * Which submissions share code, from one index of every submission's fingerprints (fingerprints.ts):
 * each fingerprint adds its places to the pairs of submissions that hold it, so the work grows with
 * the fingerprints and the pairs that share one (the candidates), never with all n² pairs. The
 * handout's k-grams are no submission's fingerprints, and a fingerprint found in more than half of
 * the submissions counts for no pair: what every student received, or wrote from the textbook
 * formula, is never evidence. Submissions whose token streams are equal are indexed once.
 *
 * A pair's score is the share of both sides' fingerprints that they share. Which stretches of code
 * they share (fragments.ts) is worked out only for the pairs a person will read: those at or above
 * the threshold, ranked by how much code they share (tokens covered, then the longest stretch), so
 * that a long disguised copy comes before two short files that happen to match; then the best of
 * the others by score, for the CSV.
 */
import type { Tokenised } from './collect';
import { KGRAM, kgramHashes, streamKey, WINDOW, winnow, type Fingerprints } from './fingerprints';
import { byHash, sharedCode, type Fragment, type Shared } from './fragments';

export type { Fragment } from './fragments';

export interface PairScore {
  a: string;
  b: string;
  /** Shared fingerprints over both submissions' counted fingerprints, 0 … 1. */
  score: number;
  /** Share of a's counted fingerprints also in b, and of b's in a. */
  aInB: number;
  bInA: number;
}

export interface PairDetail extends PairScore {
  /** Tokens of shared code (of the side that has fewer in shared stretches). */
  shared: number;
  /** Tokens in the longest shared stretch. */
  longest: number;
  /** Shared stretches, longest first, as token ranges of a and b (the submissions' spans place them in the text). */
  fragments: Fragment[];
}

export interface Comparison {
  submissions: Tokenised[];
  /** How many pairs there are in all (n·(n−1)/2). */
  pairCount: number;
  /** Fingerprints found in more than this many submissions count for no pair. */
  commonAt: number;
  /** Distinct k-grams of the handout's code, none of them a submission's fingerprint. */
  handoutKgrams: number;
  /** Every score above 0 that some pairs have, best first, with how many pairs have it. Pairs not counted score 0. */
  scores: { score: number; pairs: number }[];
  /** The pairs at or above `threshold`, most shared code first, then up to `others` more, best score first. */
  listed(threshold: number, others: number): PairDetail[];
  /** Steps taken so far (postings, pair updates, matches): what the attack tests bound. */
  work(): number;
}

/** A fingerprint in more than half of the submissions (at least 10) is common knowledge, not evidence. */
export const commonAt = (n: number) => Math.max(10, Math.ceil(n / 2));

/** Submissions with one token stream. */
interface Group {
  ids: Int32Array;
  members: number[];
  /** Counted fingerprints: not the handout's, not common. */
  fp: Fingerprints;
  order?: Int32Array;
}

interface GroupPair {
  x: number;
  y: number;
  score: number;
  xInY: number;
  yInX: number;
  pairs: number;
  shared?: Shared;
}

function sameStream(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function groupStreams(submissions: readonly Tokenised[]): Group[] {
  const groups: Group[] = [];
  const byKey = new Map<string, number[]>();
  for (const [i, s] of submissions.entries()) {
    const ids = s.ids;
    const key = streamKey(ids);
    const candidates = byKey.get(key) ?? [];
    let g = candidates.find((c) => sameStream(groups[c].ids, ids));
    if (g === undefined) {
      g = groups.length;
      groups.push({ ids, members: [], fp: { hashes: new Uint32Array(0), positions: new Int32Array(0) } });
      byKey.set(key, [...candidates, g]);
    }
    groups[g].members.push(i);
  }
  return groups;
}

function keep(fp: Fingerprints, test: (hash: number) => boolean): Fingerprints {
  const kept = fp.hashes.map((h) => (test(h) ? 1 : 0));
  return { hashes: fp.hashes.filter((_, i) => kept[i]), positions: fp.positions.filter((_, i) => kept[i]) };
}

/** Winnowing's two lengths (fingerprints.ts); other values are for measuring which separate copies best. */
export interface WinnowingOptions {
  kgram?: number;
  window?: number;
}

export function compare(submissions: readonly Tokenised[], handout?: Tokenised, { kgram = KGRAM, window = WINDOW }: WinnowingOptions = {}): Comparison {
  const n = submissions.length;
  const cap = commonAt(n);
  const groups = groupStreams(submissions);
  const handoutHashes = new Set(handout ? kgramHashes(handout.ids, kgram) : []);
  let work = 0;

  const kgrams = groups.map((g) => kgramHashes(g.ids, kgram));
  const occurrences: Map<number, number>[] = groups.map((g, gi) => {
    g.fp = keep(winnow(kgrams[gi], window), (h) => !handoutHashes.has(h));
    const times = new Map<number, number>();
    for (const h of g.fp.hashes) times.set(h, (times.get(h) ?? 0) + 1);
    return times;
  });
  // How many submissions hold each fingerprint anywhere, selected by winnowing there or not: a
  // formula's k-gram near where it starts is selected in some submissions only, and is as common.
  const holders = new Map<number, number>();
  const lastHolder = new Map<number, number>();
  for (const times of occurrences) for (const h of times.keys()) holders.set(h, 0);
  for (const [gi, g] of groups.entries()) {
    for (const h of kgrams[gi]) {
      const count = holders.get(h);
      if (count === undefined || lastHolder.get(h) === gi) continue;
      lastHolder.set(h, gi);
      holders.set(h, count + g.members.length);
    }
  }
  work += kgrams.reduce((sum, k) => sum + k.length, 0);
  for (const [gi, g] of groups.entries()) {
    g.fp = keep(g.fp, (h) => holders.get(h)! <= cap);
    for (const h of [...occurrences[gi].keys()]) if (holders.get(h)! > cap) occurrences[gi].delete(h);
  }

  // Postings (hash, group), ordered by hash then group: a run of one hash lists the groups holding it.
  const GROUP_BITS = 2 ** 21;
  const keys = Float64Array.from(occurrences.flatMap((times, gi) => [...times.keys()].map((h) => h * GROUP_BITS + gi))).sort();
  const runEnd = new Int32Array(keys.length);
  for (let e = keys.length - 1; e >= 0; e--) {
    const sameNext = e + 1 < keys.length && Math.floor(keys[e + 1] / GROUP_BITS) === Math.floor(keys[e] / GROUP_BITS);
    runEnd[e] = sameNext ? runEnd[e + 1] : e + 1;
  }
  const postingsOf: number[][] = groups.map(() => []);
  /** Places of the posting's hash in its group. */
  const placesAt = new Float64Array(keys.length);
  for (let e = 0; e < keys.length; e++) {
    const g = keys[e] % GROUP_BITS;
    postingsOf[g].push(e);
    placesAt[e] = occurrences[g].get(Math.floor(keys[e] / GROUP_BITS))!;
  }
  work += keys.length;

  // One row of pairs (x, y > x) at a time: what x shares with each y, from x's postings only.
  const pairs: GroupPair[] = [];
  const sharedX = new Float64Array(groups.length);
  const sharedY = new Float64Array(groups.length);
  const touched: number[] = [];
  for (const [x, g] of groups.entries()) {
    const total = g.fp.hashes.length;
    if (total === 0) continue;
    if (g.members.length > 1) pairs.push({ x, y: x, score: 1, xInY: 1, yInX: 1, pairs: (g.members.length * (g.members.length - 1)) / 2 });
    for (const e of postingsOf[x]) {
      for (let f = e + 1; f < runEnd[e]; f++) {
        const y = keys[f] % GROUP_BITS;
        if (sharedX[y] === 0) touched.push(y);
        sharedX[y] += placesAt[e];
        sharedY[y] += placesAt[f];
      }
      work += runEnd[e] - e;
    }
    for (const y of touched) {
      const other = groups[y].fp.hashes.length;
      pairs.push({
        x, y, score: (sharedX[y] + sharedY[y]) / (total + other), xInY: sharedX[y] / total, yInX: sharedY[y] / other,
        pairs: g.members.length * groups[y].members.length,
      });
      sharedX[y] = 0;
      sharedY[y] = 0;
    }
    touched.length = 0;
  }
  pairs.sort((p, q) => q.score - p.score || p.x - q.x || p.y - q.y);

  const sharedOf = (p: GroupPair): Shared => {
    if (!p.shared) {
      const [gx, gy] = [groups[p.x], groups[p.y]];
      gx.order ??= byHash(gx.fp);
      gy.order ??= byHash(gy.fp);
      p.shared = sharedCode({ ids: gx.ids, fp: gx.fp, order: gx.order }, { ids: gy.ids, fp: gy.fp, order: gy.order }, kgram, window);
      work += p.shared.work;
    }
    return p.shared;
  };

  /** The pairs of submissions a pair of groups stands for, each side named in order. */
  const expand = (p: GroupPair): PairDetail[] => {
    const shared = sharedOf(p);
    const swapped = shared.fragments.map((f) => ({ a: f.b, b: f.a, tokens: f.tokens }));
    const out: PairDetail[] = [];
    const [xs, ys] = [groups[p.x].members, groups[p.y].members];
    for (const [i, a] of xs.entries()) {
      for (const b of p.x === p.y ? xs.slice(i + 1) : ys) {
        const [na, nb] = [submissions[a].name, submissions[b].name];
        const common = { shared: shared.tokens, longest: shared.longest, score: p.score };
        out.push(na < nb
          ? { a: na, b: nb, aInB: p.xInY, bInA: p.yInX, fragments: shared.fragments, ...common }
          : { a: nb, b: na, aInB: p.yInX, bInA: p.xInY, fragments: swapped, ...common });
      }
    }
    return out.sort((u, v) => (u.a < v.a ? -1 : u.a > v.a ? 1 : u.b < v.b ? -1 : u.b > v.b ? 1 : 0));
  };

  const listed = (threshold: number, others: number): PairDetail[] => {
    const flagged = pairs.filter((p) => p.score >= threshold);
    for (const p of flagged) sharedOf(p);
    flagged.sort((p, q) => q.shared!.tokens - p.shared!.tokens || q.shared!.longest - p.shared!.longest || q.score - p.score || p.x - q.x || p.y - q.y);
    const out = flagged.flatMap(expand);
    let more = 0;
    for (const p of pairs) {
      if (more >= others) break;
      if (p.score >= threshold) continue;
      const rows = expand(p);
      out.push(...rows.slice(0, others - more));
      more += rows.length;
    }
    return out;
  };

  const scores: { score: number; pairs: number }[] = [];
  for (const p of pairs) {
    if (scores.at(-1)?.score === p.score) scores.at(-1)!.pairs += p.pairs;
    else scores.push({ score: p.score, pairs: p.pairs });
  }
  return { submissions: [...submissions], pairCount: (n * (n - 1)) / 2, commonAt: cap, handoutKgrams: handoutHashes.size, scores, listed, work: () => work };
}

/**
 * Groups of three or more submissions joined by pairs at or above `threshold` (connected
 * components): one solution shared around a group, shown as one.
 */
export function clusters(pairs: readonly PairScore[], threshold: number): string[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    // Every name on the way points at the root: a chain is walked once.
    for (let at = x; at !== root;) {
      const next = parent.get(at)!;
      parent.set(at, root);
      at = next;
    }
    return root;
  };
  for (const p of pairs) {
    if (p.score < threshold) continue;
    for (const x of [p.a, p.b]) if (!parent.has(x)) parent.set(x, x);
    const [ra, rb] = [find(p.a), find(p.b)];
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  }
  const groups = new Map<string, string[]>();
  for (const x of parent.keys()) {
    const root = find(x);
    const group = groups.get(root);
    if (group) group.push(x);
    else groups.set(root, [x]);
  }
  return [...groups.values()].filter((g) => g.length >= 3).map((g) => g.sort()).sort((g, h) => h.length - g.length || (g[0] < h[0] ? -1 : 1));
}
