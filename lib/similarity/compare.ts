/**
 * Which submissions share code: Dolos's fingerprint index (@dodona/dolos-core: winnowing over
 * token k-grams, as MOSS does) over the tokens of tokens.ts. The handout's code is added as an
 * ignored file, so that what every student received is never evidence, and a fingerprint that
 * most submissions share (the textbook formula) counts for no pair.
 *
 * Every pair's score comes from the index, never from comparing two submissions token by token:
 * each shared fingerprint adds its occurrences to the pairs of files it is in. Only the pairs a
 * person will read (the CSV's and the page's) are built as Dolos pairs, for their fragments.
 */
import type { Tokenised } from './collect';

// dolos-core is an ES module; this project is CommonJS: a dynamic import loads it on every Node line.
type DolosCore = typeof import('@dodona/dolos-core', { with: { 'resolution-mode': 'import' } });
type TokenizedFile = InstanceType<DolosCore['TokenizedFile']>;
type FingerprintIndex = InstanceType<DolosCore['FingerprintIndex']>;

/**
 * k-grams of this many tokens; winnowing keeps one per window of this many k-grams. Dolos's defaults
 * (23, 17) are for programs of hundreds of lines; on this 20-line exercise 15 and 8 separated the
 * self-test's disguised copies from its independent solutions best (8 … 21 tried).
 */
export const KGRAM = 15;
export const WINDOW = 8;

export interface PairScore {
  a: string;
  b: string;
  /** Shared fingerprints over both submissions' counted fingerprints, 0 … 1. */
  score: number;
  /** Share of a's counted fingerprints also in b, and of b's in a. */
  aInB: number;
  bInA: number;
}

export interface Fragment {
  /** Token ranges (inclusive) and text spans [startLine, startCol, endLine, endCol], 0-based, in a and b. */
  a: { from: number; to: number; span: [number, number, number, number] };
  b: { from: number; to: number; span: [number, number, number, number] };
  tokens: number;
}

export interface PairDetail extends PairScore {
  longest: number;
  fragments: Fragment[];
}

export interface Comparison {
  submissions: Tokenised[];
  /** Every pair that shares a counted fingerprint, best first. Pairs not listed score 0. */
  pairs: PairScore[];
  /** How many pairs there are in all (n·(n−1)/2). */
  pairCount: number;
  /** Fingerprints found in more than this many submissions count for no pair. */
  commonAt: number;
  /** Fingerprints of the handout's code, removed from every submission. */
  handoutFingerprints: number;
  detail(pair: PairScore): PairDetail;
}

let loaded: Promise<DolosCore> | undefined;
const dolosCore = () => (loaded ??= import('@dodona/dolos-core'));

/** A fingerprint in more than half of the submissions (at least 10) is common knowledge, not evidence. */
export const commonAt = (n: number) => Math.max(10, Math.ceil(n / 2));

export async function compare(submissions: readonly Tokenised[], handout?: Tokenised): Promise<Comparison> {
  const dolos = await dolosCore();
  const asFile = (t: Tokenised) => new dolos.TokenizedFile(new dolos.File(t.name, t.text), t.tokens, t.spans.map((s) => new dolos.Region(...s)));
  const cap = commonAt(submissions.length);
  const index: FingerprintIndex = new dolos.FingerprintIndex(KGRAM, WINDOW, false);
  const files = submissions.map(asFile);
  index.addFiles(files);
  // Set after the files are in, once: Dolos re-applies a cap on every file added past it, which
  // costs the square of a common fingerprint's files.
  index.updateMaxFingerprintFileCount(cap);
  let handoutFingerprints = 0;
  if (handout && handout.tokens.length > 0) {
    // Added last, so that its fingerprints leave every submission's count (Dolos moves them then).
    index.addIgnoredFile(asFile(handout));
    handoutFingerprints = index.ignoredEntries()[0]?.kgrams.length ?? 0;
  }
  const position = new Map<TokenizedFile, number>(files.map((f, i) => [f, i]));
  const entries = index.entries();

  // Counted fingerprints of each submission: its k-grams whose fingerprint is neither the handout's nor common.
  const counted = new Float64Array(files.length);
  for (const entry of entries) {
    let n = 0;
    for (const shared of entry.shared) n += shared.occurrencesOf(entry.file).length;
    counted[position.get(entry.file)!] = n;
  }
  const n = files.length;
  const aCovered = new Map<number, number>();
  const bCovered = new Map<number, number>();
  for (const shared of index.sharedFingerprints()) {
    if (shared.ignored) continue;
    const holders = shared.files().map((f) => position.get(f)).filter((i): i is number => i !== undefined).sort((x, y) => x - y);
    if (holders.length < 2) continue;
    const occurrences = holders.map((i) => shared.occurrencesOf(files[i]).length);
    for (let x = 0; x < holders.length; x++) {
      for (let y = x + 1; y < holders.length; y++) {
        const key = holders[x] * n + holders[y];
        aCovered.set(key, (aCovered.get(key) ?? 0) + occurrences[x]);
        bCovered.set(key, (bCovered.get(key) ?? 0) + occurrences[y]);
      }
    }
  }
  const pairs: PairScore[] = [];
  for (const [key, a] of aCovered) {
    const [i, j] = [Math.floor(key / n), key % n];
    const b = bCovered.get(key)!;
    const total = counted[i] + counted[j];
    pairs.push({
      a: submissions[i].name, b: submissions[j].name,
      score: total > 0 ? (a + b) / total : 0,
      aInB: counted[i] > 0 ? a / counted[i] : 0,
      bInA: counted[j] > 0 ? b / counted[j] : 0,
    });
  }
  pairs.sort((p, q) => q.score - p.score || (p.a < q.a ? -1 : p.a > q.a ? 1 : p.b < q.b ? -1 : 1));

  const byName = new Map(submissions.map((s, i) => [s.name, i]));
  const detail = (pair: PairScore): PairDetail => {
    const [left, right] = [files[byName.get(pair.a)!], files[byName.get(pair.b)!]];
    const dolosPair = index.getPair(left, right);
    const fragments = dolosPair.buildFragments().map((f): Fragment => {
      const first = f.pairs[0];
      const last = f.pairs[f.pairs.length - 1];
      const region = (r: { startRow: number; startCol: number; endRow: number; endCol: number }) => [r.startRow, r.startCol, r.endRow, r.endCol] as [number, number, number, number];
      return {
        a: { from: first.left.start, to: last.left.stop, span: region(f.leftSelection) },
        b: { from: first.right.start, to: last.right.stop, span: region(f.rightSelection) },
        tokens: last.left.stop - first.left.start + 1,
      };
    }).sort((x, y) => y.tokens - x.tokens);
    return { ...pair, longest: fragments[0]?.tokens ?? 0, fragments };
  };
  return { submissions: [...submissions], pairs, pairCount: (n * (n - 1)) / 2, commonAt: cap, handoutFingerprints, detail };
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
    parent.set(x, root);
    return root;
  };
  for (const p of pairs) {
    if (p.score < threshold) break;
    for (const x of [p.a, p.b]) if (!parent.has(x)) parent.set(x, x);
    const [ra, rb] = [find(p.a), find(p.b)];
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  }
  const groups = new Map<string, string[]>();
  for (const x of parent.keys()) groups.set(find(x), [...(groups.get(find(x)) ?? []), x]);
  return [...groups.values()].filter((g) => g.length >= 3).map((g) => g.sort()).sort((g, h) => h.length - g.length || (g[0] < h[0] ? -1 : 1));
}
