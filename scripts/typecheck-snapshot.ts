/**
 * npm run typecheck:snapshot: builds the startup snapshot the grader's type checks start from
 * (lib/typecheck/snapshot.ts) for this Node, unless it exists. Checks without it are slower, not
 * different, so this never fails a set-up: it says why there is none and exits 0.
 */
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/paths';
import { snapshotSettings } from '../lib/typecheck/check';
import { ensureTypeCheckSnapshot } from '../lib/typecheck/snapshot';

const started = Date.now();
const made = ensureTypeCheckSnapshot(snapshotSettings());
if ('blob' in made) {
  const how = made.built ? `built in ${((Date.now() - started) / 1000).toFixed(1)} s` : 'kept from before';
  console.log(`typecheck:snapshot: ${path.relative(PROJECT_ROOT, made.blob)} (${how}, Node ${process.version})`);
} else console.log(`typecheck:snapshot: none for Node ${process.version}, the type checks run without it: ${made.why}`);
