/**
 * Typical submissions for the batch benchmark (`npm run bench`, `npm run bench:batch`): the
 * catalogue's correct and buggy ones, round robin, laid out as submission folders.
 */
import fs from 'node:fs';
import { BUGS, CORRECT } from './catalogue';
import { materialize } from './grader/materialize';

/** Writes `count` submission folders s000, s001, … into `dir`. */
export function layOutCatalogue(dir: string, count: number): void {
  fs.mkdirSync(dir, { recursive: true });
  const pool = [...CORRECT.filter((e) => e.name !== 'reference'), ...BUGS];
  for (let i = 0; i < count; i++) materialize(pool[i % pool.length].file, dir, `s${String(i).padStart(3, '0')}`);
}
