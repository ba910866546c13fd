/**
 * Test submissions live as single files beside a shared correct `base.ts`; the grader takes
 * folders. This lays one out as a real submission folder: index.ts plus a copy of base.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BASE = path.join(__dirname, '..', 'catalogue', 'bugs', 'base.ts');

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
}

/** Writes `entry` as `<parent>/<name>/index.ts` (with base.ts beside it) and returns the folder. */
export function materialize(entry: string, parent: string, name = path.basename(entry, '.ts')): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  // Relative imports of the harness keep working: the grader maps any path ending in lib/tensor.
  fs.copyFileSync(entry, path.join(dir, 'index.ts'));
  fs.copyFileSync(BASE, path.join(dir, 'base.ts'));
  return dir;
}
