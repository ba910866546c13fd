import path from 'node:path';

/** The project's root folder, wherever it was cloned. */
export const PROJECT_ROOT = path.resolve(__dirname, '..');
export const FIXTURES_DIR = path.join(PROJECT_ROOT, 'fixtures');

/** A path as a person should read it: relative to the project, never the machine's absolute path. */
export function displayPath(file: string): string {
  const relative = path.relative(PROJECT_ROOT, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? path.basename(file) : relative.split(path.sep).join('/');
}
