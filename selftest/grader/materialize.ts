/**
 * Test submissions live as single files beside a shared correct `base.ts` (and `loops.ts`, the
 * loop variants' attention); the grader takes folders. This lays one out as a real submission
 * folder: index.ts plus copies of the helpers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The catalogue's shared helper files, each copied beside a materialized submission's index.ts. */
export const HELPERS = ['base.ts', 'loops.ts', 'scores_helper.ts', 'exp_helper.ts', 'softmax_helper_exp.ts'].map((file) => path.join(__dirname, '..', 'catalogue', 'bugs', file));

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
}

/**
 * Writes `entry` as `<parent>/<name>/index.ts` (with the helpers beside it) and returns the folder;
 * an entry that is a folder's own index.ts brings the folder's other files along.
 */
export function materialize(entry: string, parent: string, name = path.basename(entry, '.ts')): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  // Relative imports of the harness keep working: the grader maps any path ending in lib/tensor.
  if (path.basename(entry) === 'index.ts') fs.cpSync(path.dirname(entry), dir, { recursive: true });
  fs.copyFileSync(entry, path.join(dir, 'index.ts'));
  for (const helper of HELPERS) fs.copyFileSync(helper, path.join(dir, path.basename(helper)));
  return dir;
}
