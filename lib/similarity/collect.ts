/**
 * The submissions of a folder as the similarity check reads them: through the grader's intake
 * (lib/intake: no links, no special files, size caps; a refused folder is a row saying why), then
 * read into tokens in child processes (readers.ts), under a time limit and a heap cap each, so that
 * no file, however pathological, can hold up or bring down the rest: a submission that cannot be
 * read is a row saying why, naming the file, and the others are compared.
 */
import fs from 'node:fs';
import path from 'node:path';
import { take } from '../intake/take';
import type { Handout } from './handout';
import type { Read } from './read';
import { READ_LIMIT_MS, readAll, startReaders, type ReadJob } from './readers';
import { joinFiles } from './tokens';

/** A submission's tokens as the index takes them: one number per token (fingerprints.ts tokenIds), and where each is. */
export type Stream = Read;

export interface Tokenised extends Stream {
  name: string;
  /** The submission's TypeScript files joined (tokens.ts joinFiles): what the page shows. */
  text: string;
}

export interface NotCompared {
  name: string;
  problem: string;
}

export type Collected = Tokenised | NotCompared;

/** The submission folders of `dir` (one per student), sorted by name; dot-folders are not submissions. */
export function submissionFolders(dir: string): string[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`submissions folder ${dir} not found: pass a folder with one subfolder per submission`);
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
}

export interface CollectOptions {
  /** Read with the submissions, by the same children: the handout's code (handout.ts). */
  handout?: Handout;
  limitMs?: number;
}

/** Every submission of `dir` through the intake, then read; and the handout, if given. */
export async function collect(dir: string, { handout, limitMs = READ_LIMIT_MS }: CollectOptions = {}): Promise<{ submissions: Collected[]; handout?: Collected }> {
  const folders = submissionFolders(dir);
  // The children load TypeScript while this process reads the folders.
  const readers = startReaders(folders.length + (handout ? 1 : 0));
  const taken = folders.map((name) => ({ name, taken: take(path.join(dir, name), name) }));
  const jobs: (ReadJob & { name: string })[] = taken.flatMap(({ name, taken: t }) => (t instanceof Error ? [] : [{ name, label: t.label, entry: t.entry, files: t.files }]));
  // The handout is the last job, named by its place, never by a name a submission folder could have too.
  if (handout) jobs.push({ name: '(handout)', ...handout });
  const read = await readAll(jobs, limitMs, readers);
  const rows: Collected[] = jobs.map((job, i) => {
    const r = read[i];
    return typeof r === 'string' ? { name: job.name, problem: `could not be read: ${r}` } : { name: job.name, text: joinFiles(job.files, job.entry), ...r };
  });
  let next = 0;
  return {
    submissions: taken.map(({ name, taken: t }) => (t instanceof Error ? { name, problem: `not read: ${t.message}` } : rows[next++])),
    handout: handout && rows[next],
  };
}
