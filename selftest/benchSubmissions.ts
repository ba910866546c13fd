/**
 * Typical submissions for the batch benchmark (`npm run bench`, `npm run bench:batch`): the
 * catalogue's correct and buggy ones, round robin, laid out as submission folders.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BUGS, CORRECT } from './catalogue';
import { materialize } from './grader/materialize';

/** Writes `count` submission folders s000, s001, … into `dir`. */
export function layOutCatalogue(dir: string, count: number): void {
  fs.mkdirSync(dir, { recursive: true });
  const pool = [...CORRECT.filter((e) => e.name !== 'reference'), ...BUGS];
  for (let i = 0; i < count; i++) {
    const folder = materialize(pool[i % pool.length].file, dir, `s${String(i).padStart(3, '0')}`);
    // Correct entries that borrow the bugs' helpers import them as '../bugs/…': in a submission
    // folder the helpers sit beside index.ts (an import out of the folder is refused).
    const index = path.join(folder, 'index.ts');
    fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace(/(from\s+')\.\.\/bugs\//g, '$1./'));
  }
}
