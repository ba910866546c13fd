/**
 * Splitting a batch across machines: `--shard i/n` grades the submissions whose name hashes to i.
 * The hash is of the name alone, so adding or removing a submission never moves another between
 * shards, and every machine that sees the same folder computes the same split.
 */
import { createHash } from 'node:crypto';

/** Shard `index` of `count`, 1-based as it is written on the command line: 1/3, 2/3, 3/3. */
export interface Shard {
  index: number;
  count: number;
}

/** A batch graded on one machine is its only shard. */
export const WHOLE: Shard = { index: 1, count: 1 };

/** Most machines a batch is split across; far more than a course needs, far fewer than a typo makes. */
export const MAX_SHARDS = 1000;

export const formatShard = (shard: Shard): string => `${shard.index}/${shard.count}`;

/** `i/n` → Shard, or one line saying why the text is not one. */
export function parseShard(text: string): Shard | string {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!match) return `--shard takes i/n, the i-th of n shards (e.g. 2/3), got "${text}"`;
  const [index, count] = [Number(match[1]), Number(match[2])];
  if (count < 1 || count > MAX_SHARDS) return `--shard ${text}: n must be 1 to ${MAX_SHARDS}`;
  if (index < 1 || index > count) return `--shard ${text}: i must be 1 to ${count}`;
  return { index, count };
}

/** The shard (1 to count) a submission's name falls in: the first 48 bits of its sha256, modulo count. */
export function shardOf(name: string, count: number): number {
  return (createHash('sha256').update(name, 'utf8').digest().readUIntBE(0, 6) % count) + 1;
}

export const inShard = (name: string, shard: Shard): boolean => shardOf(name, shard.count) === shard.index;
