import path from 'node:path';

/** The project's root folder, wherever it was cloned. */
export const PROJECT_ROOT = path.resolve(__dirname, '..');
export const FIXTURES_DIR = path.join(PROJECT_ROOT, 'fixtures');

/** A path as a person should read it: relative to the project, never the machine's absolute path. */
export function displayPath(file: string): string {
  const relative = path.relative(PROJECT_ROOT, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? path.basename(file) : relative.split(path.sep).join('/');
}

/** ts-node's command-line entry: scripts are run with `node TS_NODE_BIN script.ts`, as `npm run` does. */
export const TS_NODE_BIN = path.join(PROJECT_ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js');
