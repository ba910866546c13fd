/**
 * `<out>/batch.json`: what a batch folder holds and how it was graded: its shard, the submissions
 * of that shard, a fingerprint of the whole submissions folder (so shards graded from different
 * folders are told apart), the case table, the fixtures' hashes, the options and where each
 * submission's files are. The merge reads it to check that shard outputs belong together. It is
 * removed when a run starts and written when it ends, so a folder whose run did not finish has
 * none; a run stopped by a signal writes it for what finished, marked `interrupted`, and no merge
 * takes that.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { GradedCase } from '../assignment/cases';
import { writeFileAtomic } from '../fsAtomic';
import { RECORD_FILE } from '../report/layout';
import type { GradedWith } from './provenance';
import type { Shard } from './shard';

export { RECORD_FILE };

export interface BatchRecord {
  about: string;
  shard: Shard;
  /** The submissions folder before it was split: how many, and sha256 of their names. */
  batch: { submissions: number; sha256: string };
  /** This shard's submissions, sorted as the batch lists them. */
  submissions: string[];
  graded_with: GradedWith;
  case_table: GradedCase[];
  fixtures: Record<string, string>;
  /** Each submission's name → the stem of its files, `submissions/<stem>.json` and `.html` (lib/report/layout.ts). */
  files: Record<string, string>;
  /** Set when the run was stopped by a signal: only `graded` of the submissions have a result; the same command finishes it. */
  interrupted?: { signal: string; graded: number; of: number };
}

export const ABOUT = 'npm run grade -- --submissions: the submissions in this folder and what they were graded with';

/** sha256 of a list of names, order-independent. */
export function namesHash(names: readonly string[]): string {
  const hash = createHash('sha256');
  for (const name of [...names].sort()) hash.update(`${Buffer.byteLength(name)}\0${name}\0`);
  return hash.digest('hex');
}

export function writeRecord(outDir: string, record: BatchRecord): void {
  writeFileAtomic(path.join(outDir, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

export function removeRecord(outDir: string): void {
  fs.rmSync(path.join(outDir, RECORD_FILE), { force: true });
}

/** The record of a batch folder, or one line saying why there is none to read. */
export function readRecord(outDir: string): BatchRecord | string {
  const file = path.join(outDir, RECORD_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return `${outDir} has no ${RECORD_FILE}, so it is not the output of a finished \`npm run grade -- --submissions\`: grade it (again)`;
  }
  try {
    const record = JSON.parse(text) as BatchRecord;
    const shard = record.shard;
    if (!shard || !Number.isInteger(shard.index) || !Number.isInteger(shard.count) || !Array.isArray(record.submissions) ||
        !Array.isArray(record.case_table) || typeof record.graded_with?.options !== 'object' || typeof record.batch?.sha256 !== 'string' ||
        typeof record.files !== 'object' || record.files === null) {
      throw new Error('fields missing');
    }
    return record;
  } catch (err) {
    return `${file} is not a batch record this grader wrote (${(err as Error).message}): grade that folder again`;
  }
}
