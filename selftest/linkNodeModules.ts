/**
 * Gives a copy of the project (a handout, an unpacked Gradescope bundle) the project's packages
 * without `npm ci` (no network in CI): one link to the project's node_modules. The contained
 * child still starts behind it because lib/sandbox/containment.ts grants real paths.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/paths';

export function linkNodeModules(dir: string): void {
  fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'junction');
}
