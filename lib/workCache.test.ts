/**
 * The work cache keeps what a run computed for the next one, and only for as long as runs use it:
 * an entry no run has read for two weeks is removed at the end of a run, one read since is kept.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempFolders } from './tempFolders.testkit';
import { CACHE_DIR, WorkCache } from './workCache';

const DAY_MS = 24 * 3600 * 1000;
const isNumber = (value: unknown): value is number => typeof value === 'number';
const outDir = tempFolders('work-cache-');

/** The entry files of `kind`, with their modification times set `daysAgo` back. */
function ageEntries(out: string, kind: string, daysAgo: number): void {
  const folder = path.join(out, CACHE_DIR, kind);
  const then = new Date(Date.now() - daysAgo * DAY_MS);
  for (const name of fs.readdirSync(folder)) fs.utimesSync(path.join(folder, name), then, then);
}

describe('WorkCache', () => {
  it('gives back what was kept for the same key and salt, and nothing for another key, salt or a value it refuses', () => {
    const out = outDir();
    new WorkCache(out, 'kind', 'salt 1').set({ name: 'ada', files: ['index.ts'] }, 42);
    expect(new WorkCache(out, 'kind', 'salt 1').get({ name: 'ada', files: ['index.ts'] }, isNumber)).toBe(42);
    expect(new WorkCache(out, 'kind', 'salt 1').get({ name: 'bo', files: ['index.ts'] }, isNumber)).toBeUndefined();
    expect(new WorkCache(out, 'kind', 'salt 2').get({ name: 'ada', files: ['index.ts'] }, isNumber)).toBeUndefined();
    expect(new WorkCache(out, 'kind', 'salt 1').get({ name: 'ada', files: ['index.ts'] }, (v): v is string => typeof v === 'string')).toBeUndefined();
  });

  it('an entry no run used for two weeks is pruned; one a run read since is kept, whenever it was written', () => {
    const out = outDir();
    const cache = new WorkCache(out, 'kind', 'salt');
    cache.set('unused', 1);
    cache.set('read', 2);
    cache.set('fresh', 3);
    ageEntries(out, 'kind', 15);
    expect(cache.get('read', isNumber)).toBe(2); // a read marks the entry used
    cache.set('fresh', 3); // written again: new
    cache.prune();
    expect(['unused', 'read', 'fresh'].map((key) => cache.get(key, isNumber))).toEqual([undefined, 2, 3]);
    expect(fs.readdirSync(path.join(out, CACHE_DIR, 'kind'))).toHaveLength(2);
  });

  it('an entry used within the two weeks is kept, at any age up to them', () => {
    const out = outDir();
    const cache = new WorkCache(out, 'kind', 'salt');
    cache.set('thirteen days', 1);
    ageEntries(out, 'kind', 13);
    cache.prune();
    expect(cache.get('thirteen days', isNumber)).toBe(1);
  });

  it('pruning a cache never written, or a folder that cannot be read, does nothing and throws nothing', () => {
    expect(() => new WorkCache(outDir(), 'kind', 'salt').prune()).not.toThrow();
    expect(() => new WorkCache(path.join(outDir(), 'missing', 'deeper'), 'kind', 'salt').prune()).not.toThrow();
  });
});
