/**
 * A handout cut once and written into a folder per use (the stubs as released, the reference or a
 * mistake as student/index.ts…), each with the project's packages linked in (linkNodeModules.ts),
 * for the self-tests that use a handout as a student would. Installing it as a student does (its own
 * `npm ci`) is selftest/classroomDocs.test.ts, once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/paths';
import { buildHandout, writeHandout, type Handed, type Handout } from '../lib/release';
import { linkNodeModules } from './linkNodeModules';

/** The handout's own loader, relative to a copy's folder: what its `npm run grade` and `npm run typecheck` run. */
export const HANDOUT_RUN_TS = 'scripts/runTs.js';

/**
 * `<temp>/<name>` for each name, the same handout in each (`handout`, when the caller has cut it
 * already); `solved`, when named, has the reference as student/index.ts.
 */
export function handoutCopies<Name extends string>(
  assignment: Handed, temp: string, names: readonly Name[], handout: Handout = buildHandout(assignment),
): Record<Name, string> {
  const dirs = Object.fromEntries(names.map((name) => {
    const dir = path.join(temp, name);
    writeHandout(handout, dir);
    linkNodeModules(dir);
    return [name, dir];
  })) as Record<Name, string>;
  if ('solved' in dirs) fs.copyFileSync(path.join(PROJECT_ROOT, 'reference', 'index.ts'), path.join(dirs['solved' as Name], 'student', 'index.ts'));
  return dirs;
}
