/**
 * The similarity check of a submissions folder, as `npm run similarity` and `npm run grade --
 * --similarity` run it: intake and tokens (collect.ts), the index (compare.ts), then
 * OUT/similarity.csv and OUT/similarity.html (page.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fsAtomic';
import { collect, type NotCompared, type Tokenised } from './collect';
import { compare } from './compare';
import { committedStubs, HandoutError, type Handout } from './handout';
import { similarityReport, type SimilarityReport } from './page';

/**
 * Pairs sharing at least this share of their fingerprints are listed and shown side by side. Set
 * from the self-test's corpus (selftest/similarity): independent solutions, in four styles, share
 * at most 23% (loops written alike), copies at least 46% (one disguised by hand against another
 * disguised by a program, of the same original); 0.35 sits between, with room on both sides.
 */
export const DEFAULT_THRESHOLD = 0.35;

export interface SimilarityOptions {
  submissions: string;
  out: string;
  /**
   * The handout's code, subtracted from every submission (handout.ts): by default the stubs as
   * committed; null to subtract nothing.
   */
  handout?: Handout | null;
  threshold?: number;
}

export interface SimilarityOutcome extends SimilarityReport {
  compared: number;
  notCompared: NotCompared[];
  /** Which handout was subtracted (Handout.described), or undefined for none. */
  handout?: string;
  files: { csv: string; html: string };
  /** Steps the index and the listed pairs' fragments took (compare.ts): what no submission may blow up. */
  work: number;
}

export async function runSimilarity(options: SimilarityOptions): Promise<SimilarityOutcome> {
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  const given = options.handout === undefined ? committedStubs() : options.handout ?? undefined;
  const collected = await collect(options.submissions, { handout: given });
  const tokenised = collected.submissions.filter((c): c is Tokenised => 'ids' in c);
  const notCompared = collected.submissions.filter((c): c is NotCompared => 'problem' in c);
  const handout = collected.handout;
  if (handout && 'problem' in handout) throw new HandoutError(`the handout (${given!.described}) ${handout.problem}`);
  const comparison = compare(tokenised, handout);
  const report = similarityReport(comparison, notCompared, threshold, given?.described);
  fs.mkdirSync(options.out, { recursive: true });
  const files = { csv: path.join(options.out, 'similarity.csv'), html: path.join(options.out, 'similarity.html') };
  writeFileAtomic(files.csv, report.csv);
  writeFileAtomic(files.html, report.html);
  return { ...report, compared: tokenised.length, notCompared, handout: given?.described, files, work: comparison.work() };
}
