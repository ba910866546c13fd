/**
 * The similarity check of a submissions folder, as `npm run similarity` and `npm run grade --
 * --similarity` run it: intake and tokens (collect.ts), the index (compare.ts), then
 * OUT/similarity.csv and OUT/similarity.html (page.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fsAtomic';
import { collect, collectBase, type NotCompared, type Tokenised } from './collect';
import { compare } from './compare';
import { similarityReport, type SimilarityReport } from './page';

/**
 * Pairs sharing at least this share of their fingerprints are listed and shown side by side. Set
 * from the self-test's corpus (selftest/similarity): independent solutions, in four styles, share
 * at most 22% (loops written alike), disguised copies at least 47%; 0.35 sits between, with room on
 * both sides.
 */
export const DEFAULT_THRESHOLD = 0.35;

export interface SimilarityOptions {
  submissions: string;
  out: string;
  /** The handout's code, subtracted from every submission; undefined to subtract nothing. */
  base?: string;
  threshold?: number;
}

export interface SimilarityOutcome extends SimilarityReport {
  compared: number;
  notCompared: NotCompared[];
  files: { csv: string; html: string };
}

export async function runSimilarity(options: SimilarityOptions): Promise<SimilarityOutcome> {
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  const collected = await collect(options.submissions);
  const tokenised = collected.filter((c): c is Tokenised => 'tokens' in c);
  const notCompared = collected.filter((c): c is NotCompared => 'problem' in c);
  let handout: Tokenised | undefined;
  if (options.base) {
    const base = await collectBase(options.base);
    if ('problem' in base) throw new Error(base.problem);
    handout = base;
  }
  const comparison = await compare(tokenised, handout);
  const report = similarityReport(comparison, notCompared, threshold, options.base && path.basename(path.resolve(options.base)));
  fs.mkdirSync(options.out, { recursive: true });
  const files = { csv: path.join(options.out, 'similarity.csv'), html: path.join(options.out, 'similarity.html') };
  writeFileAtomic(files.csv, report.csv);
  writeFileAtomic(files.html, report.html);
  return { ...report, compared: tokenised.length, notCompared, files };
}
