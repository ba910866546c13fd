/**
 * The similarity index (compare.ts, fingerprints.ts, fragments.ts) on token streams made up for
 * each case: what counts for a pair, how a pair's shared code is measured, how pairs are ranked,
 * and that a stream's repetitions cost no more than one occurrence cap.
 */
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { Tokenised } from './collect';
import { clusters, commonAt, compare } from './compare';
import { kgramHashes, OCCURRENCE_CAP, tokenIds, winnow } from './fingerprints';

/** `count` tokens drawn from a vocabulary large enough that two draws share no k-gram. */
function stream(seed: string, count: number): string[] {
  const rng = seedrandom(seed);
  return Array.from({ length: count }, () => `t${Math.floor(rng() * 500)}`);
}

const submission = (name: string, tokens: string[]): Tokenised => ({ name, text: '', ids: tokenIds(tokens), spans: new Int32Array(4 * tokens.length) });
const key = (a: string, b: string) => [a, b].sort().join(' · ');

describe('which pairs share code', () => {
  it('identical submissions are indexed once and listed as every pair among them', () => {
    const x = stream('x', 300);
    const subs = [submission('a', x), submission('b', x), submission('c', x), submission('d', stream('d', 300))];
    const comparison = compare(subs);
    const listed = comparison.listed(0.35, 10);
    expect(listed.map((p) => key(p.a, p.b))).toEqual(['a · b', 'a · c', 'b · c']);
    expect(listed.every((p) => p.score === 1 && p.shared === 300 && p.longest === 300)).toBe(true);
    expect(comparison.scores).toEqual([{ score: 1, pairs: 3 }]);
  });

  it("the handout's k-grams are no evidence, and neither is a fingerprint in more than half of the submissions", () => {
    const handout = stream('handout', 200);
    const own = (name: string) => submission(name, [...handout, ...stream(name, 200)]);
    expect(compare([own('a'), own('b')], submission('(handout)', handout)).scores).toEqual([]);
    expect(compare([own('a'), own('b')]).scores.length).toBe(1);
    // The same 200 tokens in 11 of 20 submissions (commonAt(20) = 10): common; in 10: evidence.
    const formula = stream('formula', 200);
    const course = (holders: number) => Array.from({ length: 20 }, (_, i) => submission(`s${i}`, [...stream(`s${i}`, 100), ...(i < holders ? formula : [])]));
    expect(commonAt(20)).toBe(10);
    expect(compare(course(11)).scores).toEqual([]);
    expect(compare(course(10)).scores.reduce((sum, s) => sum + s.pairs, 0)).toBe(45);
  });

  it('400 identical colluders among 800 are every pair among them and one group', () => {
    const copy = stream('copy', 100);
    const subs = Array.from({ length: 800 }, (_, i) => submission(`s${String(i).padStart(3, '0')}`, i < 400 ? copy : stream(`own${i}`, 100)));
    const listed = compare(subs).listed(0.35, 0);
    expect(listed.length).toBe((400 * 399) / 2);
    expect(clusters(listed, 0.35).map((g) => g.length)).toEqual([400]);
  });
});

describe("a pair's shared code", () => {
  it('two blocks swapped are two stretches, and every token of them counts', () => {
    const [x, y] = [stream('x', 120), stream('y', 80)];
    const comparison = compare([submission('a', [...x, ...stream('a', 50), ...y]), submission('b', [...y, ...stream('b', 10), ...x])]);
    const [pair] = comparison.listed(0.35, 0);
    expect(pair.longest).toBe(120);
    expect(pair.shared).toBe(200);
    expect(pair.fragments.map((f) => f.tokens)).toEqual([120, 80]);
    expect(pair.fragments[0]).toEqual({ a: { from: 0, to: 119 }, b: { from: 90, to: 209 }, tokens: 120 });
  });

  it('pairs are ranked by how much code they share, not by their score alone', () => {
    const small = stream('small', 30);
    const big = stream('big', 200);
    const comparison = compare([
      submission('tiny_a', small), submission('tiny_b', small),
      submission('copy_a', [...big, ...stream('copy_a', 150)]), submission('copy_b', [...stream('copy_b', 150), ...big]),
    ]);
    const listed = comparison.listed(0.35, 0);
    expect(listed.map((p) => [key(p.a, p.b), p.shared])).toEqual([['copy_a · copy_b', 200], ['tiny_a · tiny_b', 30]]);
    expect(listed[1].score).toBeGreaterThan(listed[0].score);
  });
});

describe('repetition costs one occurrence cap', () => {
  it('a stream that repeats one statement keeps its fingerprint at OCCURRENCE_CAP places at most', () => {
    const ids = tokenIds(Array.from({ length: 40_000 }, (_, i) => ['$', '(', '$', ')'][i % 4]));
    const fp = winnow(kgramHashes(ids));
    const places = new Map<number, number>();
    for (const h of fp.hashes) places.set(h, (places.get(h) ?? 0) + 1);
    expect(Math.max(...places.values())).toBeLessThanOrEqual(OCCURRENCE_CAP);
    expect(fp.hashes.length).toBeLessThanOrEqual(4 * OCCURRENCE_CAP);
  });

  it('two long repetitive streams cost a step or two per token, not one per pair of repeats', () => {
    const repeat = (unit: string[], count: number) => Array.from({ length: count }, (_, i) => unit[i % unit.length]);
    const unit = stream('unit', 40);
    const long = compare([submission('a', repeat(unit, 200_000)), submission('b', ['x', ...repeat(unit, 199_999)])]);
    expect(long.listed(0.35, 10).map((p) => key(p.a, p.b))).toEqual(['a · b']);
    // Each 40-token repeat holds the same k-grams: pairing their places would be 10⁸ steps.
    expect(long.work()).toBeLessThanOrEqual(2 * 400_000);
  });
});
