import { describe, expect, it } from 'vitest';
import { inShard, parseShard, shardOf } from './shard';

const names = Array.from({ length: 1000 }, (_, i) => `student${i}`);

describe('shards', () => {
  it('every submission lands in exactly one shard, and the shards are about even', () => {
    for (const count of [1, 2, 3, 7]) {
      const sizes = Array.from({ length: count }, (_, i) => names.filter((n) => inShard(n, { index: i + 1, count })).length);
      expect(sizes.reduce((s, x) => s + x, 0)).toBe(names.length);
      for (const size of sizes) expect(Math.abs(size - names.length / count)).toBeLessThan(names.length / count / 4);
    }
  });

  it('adding submissions moves no other between shards, whatever the order they are listed in', () => {
    const before = new Map(names.slice(0, 500).map((n) => [n, shardOf(n, 3)]));
    const after = new Map([...names].reverse().map((n) => [n, shardOf(n, 3)]));
    for (const [name, shard] of before) expect(after.get(name)).toBe(shard);
  });

  // Pinned: a grader whose split changed would file submissions under other shards than its peers.
  it('the split depends on the name alone: fixed values', () => {
    expect(['alice', 'bob', 'carol', 'name, with "quotes"', 'é'].map((n) => shardOf(n, 3))).toEqual([2, 1, 1, 1, 2]);
  });

  it('parses i/n and refuses anything else in one line', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    expect(parseShard('4/3')).toBe('--shard 4/3: i must be 1 to 3');
    expect(parseShard('0/3')).toBe('--shard 0/3: i must be 1 to 3');
    expect(parseShard('1/0')).toBe('--shard 1/0: n must be 1 to 1000');
    expect(parseShard('2')).toMatch(/^--shard takes i\/n, the i-th of n shards \(e\.g\. 2\/3\), got "2"$/);
    expect(parseShard('1.5/3')).toMatch(/^--shard takes i\/n/);
  });
});
