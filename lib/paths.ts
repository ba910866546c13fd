import fs from 'node:fs';
import path from 'node:path';

/** The project's root folder, wherever it was cloned. */
export const PROJECT_ROOT = path.resolve(__dirname, '..');
export const FIXTURES_DIR = path.join(PROJECT_ROOT, 'fixtures');

/**
 * A path as a person should read it: relative to the project, never the machine's absolute path.
 * A file outside the project (an assignment folder GRADER_ASSIGNMENT names elsewhere) is shown from
 * `folder`, the folder it belongs to, named by its own name: "course/fixtures/case_2d/x.npy", where
 * the file's name alone could be any of the assignment's many x.npy.
 */
export function displayPath(file: string, folder?: string): string {
  const within = (base: string) => {
    const relative = path.relative(base, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? undefined : relative.split(path.sep).join('/');
  };
  const inProject = within(PROJECT_ROOT);
  if (inProject !== undefined) return inProject;
  const inFolder = folder === undefined ? undefined : within(folder);
  return inFolder === undefined ? path.basename(file) : path.posix.join(path.basename(folder!), inFolder);
}

/**
 * Where `npm run grade -- --html` writes its page when given no file: a folder .gitignore ignores
 * (the handout ships the same .gitignore), so a student who commits everything does not commit it.
 */
export const PAGES_DIR = path.join(PROJECT_ROOT, 'pages');

/**
 * How the project's scripts run (scripts/runTs.js): `node RUN_TS script.ts ARGS`, as `npm run` does,
 * or `node -r RUN_TS …` for a process that only needs `.ts` files to load.
 */
export const RUN_TS = path.join(PROJECT_ROOT, 'scripts', 'runTs.js');

/**
 * Whether this checkout is the student handout (`npm run release`): no reference solution and no
 * fixture generator. What needs instructor files says so there instead of failing.
 */
export const IS_HANDOUT = !fs.existsSync(path.join(PROJECT_ROOT, 'reference')) && !fs.existsSync(path.join(PROJECT_ROOT, 'scripts', 'fixtures.ts'));

/** How to get a fixture back: instructors regenerate; a student restores the handout's own copy. */
export const FIXTURES_FIX = IS_HANDOUT ? 'restore fixtures/ as the assignment gave it (git checkout fixtures)' : 'regenerate with `npm run fixtures`';
