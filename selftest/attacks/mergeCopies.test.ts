/**
 * What `npm run merge` copies into the gradebook (lib/batch/merge.ts): each submission's result and
 * page, from shard folders anyone with write access could have made. A page or result that is a
 * link (to /dev/zero, to a file of the machine, to another shard's file), a FIFO or a folder is
 * refused naming it, and the copies are charged to one budget: the caps crossed at every position
 * of a real merge's copies (entries, one file's size ±1, the running total ±1). A refusal writes
 * nothing. The merge runs in the instructor's process, where no containment setting applies: these
 * run once, in whatever setting the self-test has.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MERGE_LIMITS, MergeError, mergeShards } from '../../lib/batch/merge';
import { RECORD_FILE, type BatchRecord } from '../../lib/batch/record';
import { gradeBatch } from '../../lib/batch/gradeBatch';
import { PROJECT_ROOT } from '../../lib/paths';
import { pageFile, resultsFile } from '../../lib/report/batchReport';
import { gradeOptions } from '../grader/harness';
import { materialize, tempDir } from '../grader/materialize';
import { OPEN } from './trees';
import type { Cap, WalkCaps } from '../../lib/intake/walkBudget';
import { FUNCTIONS } from '../../adapters/functions';
import { CauseBook } from '../../lib/report/causes';
import { MISTAKES } from '../../tests/diagnosis/catalogue';
import { GRADED_CASES } from '../../tests/cases';

const TERMS = { functions: FUNCTIONS, causes: new CauseBook(MISTAKES) };

const root = tempDir('merge-copies');
const shards = [1, 2].map((i) => path.join(root, `shard-${i}`));
const record = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, RECORD_FILE), 'utf8')) as BatchRecord;

beforeAll(async () => {
  const submissions = path.join(root, 'submissions');
  materialize(path.join(PROJECT_ROOT, 'reference', 'index.ts'), submissions, 'ada');
  materialize(path.join(__dirname, '..', 'catalogue', 'bugs', 'scale_missing.ts'), submissions, 'bo');
  materialize(path.join(__dirname, '..', 'catalogue', 'bugs', 'mask_inverted.ts'), submissions, 'cy');
  fs.mkdirSync(path.join(submissions, 'di'));
  const options = { ...gradeOptions({ timeoutMs: 30_000 }), jobs: 2, force: false, html: true };
  for (const [i, dir] of shards.entries()) await gradeBatch(submissions, dir, { ...options, shard: { index: i + 1, count: 2 } });
});

/** The files a merge copies, in the order it charges them: by name, each result then its page. */
function copies(dirs: readonly string[]): { file: string; size: number }[] {
  const where = new Map(dirs.flatMap((dir) => record(dir).submissions.map((name) => [name, dir] as const)));
  return [...where.keys()].sort().flatMap((name) => [resultsFile(name), pageFile(name)]
    .map((file) => path.join(where.get(name)!, file))
    .filter((file) => fs.existsSync(file))
    .map((file) => ({ file, size: fs.statSync(file).size })));
}

let merges = 0;
function merge(dirs: string[], caps: WalkCaps = MERGE_LIMITS): { merged: string } | { refused: string; wrote: boolean } {
  const out = path.join(root, `merged-${merges++}`);
  try {
    mergeShards(dirs, out, GRADED_CASES, TERMS, {}, caps);
    return { merged: out };
  } catch (err) {
    if (!(err instanceof MergeError)) throw err;
    return { refused: err.message, wrote: fs.existsSync(out) };
  }
}

describe("a merge's copies are charged to one budget", () => {
  it('each cap at every position of the copies: refused at the file that crosses it, nothing written', () => {
    const files = copies(shards);
    expect(files.length).toBeGreaterThan(4);
    const crossings: { cap: Exclude<Cap, 'depth'>; value: number }[] = [
      ...Array.from({ length: files.length + 2 }, (_, value) => ({ cap: 'entries' as const, value })),
      ...files.flatMap(({ size }) => [size - 1, size, size + 1].map((value) => ({ cap: 'fileBytes' as const, value }))),
      ...files.flatMap((_, i) => {
        const total = files.slice(0, i + 1).reduce((sum, f) => sum + f.size, 0);
        return [total - 1, total, total + 1].map((value) => ({ cap: 'totalBytes' as const, value }));
      }),
    ];
    for (const { cap, value } of crossings) {
      let total = 0;
      const at = files.findIndex(({ size }, i) => (cap === 'entries' ? i >= value : cap === 'fileBytes' ? size > value : (total += size) > value));
      const got = merge(shards, { ...OPEN, depth: 0, [cap]: value });
      const label = `${cap} ${value}`;
      if (at < 0) expect(got, label).toHaveProperty('merged');
      else {
        const phrase = { entries: `takes the merge past ${value} files and folders`, fileBytes: `is ${files[at].size.toLocaleString('en-US')} bytes; a file may be at most`, totalBytes: 'takes the merge past' }[cap];
        expect(got, label).toEqual({ refused: expect.stringContaining(`${files[at].file} ${phrase}`), wrote: false });
      }
    }
  });

  it('the real caps', () => {
    expect(MERGE_LIMITS).toEqual({ entries: 200_000, depth: 0, fileBytes: 16 * 1024 ** 2, totalBytes: 8 * 1024 ** 3 });
    expect(merge(shards)).toHaveProperty('merged');
  });
});

describe('a page or result that is not a regular file is refused, naming it, and nothing is written', () => {
  const secret = path.join(root, 'secret.txt');
  const HOSTILE: Record<string, { file: (name: string) => string; make: (at: string) => void; kind: string }> = {
    page_linked_to_dev_zero: { file: pageFile, make: (at) => fs.symlinkSync('/dev/zero', at), kind: 'a symbolic link' },
    page_linked_to_a_secret: { file: pageFile, make: (at) => fs.symlinkSync(secret, at), kind: 'a symbolic link' },
    page_a_fifo: { file: pageFile, make: (at) => execFileSync('mkfifo', [at]), kind: 'a special file (a FIFO, a socket or a device)' },
    page_a_folder: { file: pageFile, make: (at) => fs.mkdirSync(at), kind: 'a folder' },
    result_linked_to_another: { file: resultsFile, make: (at) => fs.symlinkSync(path.join(root, 'elsewhere.json'), at), kind: 'a symbolic link' },
  };

  it.each(Object.keys(HOSTILE))('%s', (attack) => {
    fs.writeFileSync(secret, 'not for the gradebook\n');
    const { file, make, kind } = HOSTILE[attack];
    const dir = path.join(root, attack);
    fs.cpSync(shards[0], dir, { recursive: true });
    const name = record(dir).submissions[0];
    fs.copyFileSync(path.join(dir, resultsFile(name)), path.join(root, 'elsewhere.json'));
    fs.rmSync(path.join(dir, file(name)));
    make(path.join(dir, file(name)));
    const got = merge([dir, shards[1]]);
    expect(got).toEqual({ refused: expect.stringMatching(new RegExp(`^${path.join(dir, file(name)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is ${kind.replace(/[()]/g, '\\$&')}, not a file a grader writes: regrade shard 1/2`)), wrote: false });
  });
});
