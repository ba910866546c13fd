/**
 * The handout's code, which the similarity check subtracts from every submission (what every
 * student received is no evidence). By default the stubs as committed: `student/` at the project's
 * last commit, read from git, never the working copy, where an instructor may be trying a solution
 * of their own (which would then be subtracted from every submission that resembles it). Or a
 * folder named with --base, read as it is. Whichever it is, the output says which.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { take } from '../intake/take';
import { PROJECT_ROOT } from '../paths';

export interface Handout {
  files: Map<string, string>;
  entry: string;
  /** How reasons name its folder (lib/text/place.ts). */
  label: string;
  /** Which handout this is, for the terminal and the page: `student/ as committed in 1a2b3c4`. */
  described: string;
}

/** The handout cannot be had; the message says how to give it. */
export class HandoutError extends Error {
  override name = 'HandoutError';
}

const STUDENT = 'student';
const ENTRY = 'index.ts';

function git(root: string, args: string[]): Buffer {
  // Read alike by any user: the clone's owner or another (safe: ls-tree, rev-parse and show run no
  // hook), whatever their own git configuration, or a home they cannot read, holds.
  return execFileSync('git', ['-c', `safe.directory=${root}`, '-C', root, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
}

/** `student/` as the last commit of the project at `root` holds it. */
export function committedStubs(root = PROJECT_ROOT): Handout {
  let commit: string;
  let names: string[];
  try {
    commit = git(root, ['rev-parse', '--short', 'HEAD']).toString('utf8').trim();
    names = git(root, ['ls-tree', '-r', '-z', '--name-only', 'HEAD', '--', `${STUDENT}/`]).toString('utf8').split('\0').filter(Boolean);
  } catch (err) {
    const detail = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim().split('\n')[0];
    throw new HandoutError(`the handout's stubs as committed could not be read from git (${detail}): `
      + 'run from a git clone of the project, or pass --base DIR with the stubs as students received them');
  }
  if (!names.includes(`${STUDENT}/${ENTRY}`)) {
    throw new HandoutError(`${STUDENT}/${ENTRY} is not in the last commit (${commit}): commit the stubs, or pass --base DIR with the stubs as students received them`);
  }
  const files = new Map(names.map((name) => [name.slice(STUDENT.length + 1), git(root, ['show', `HEAD:${name}`]).toString('utf8')]));
  return { files, entry: ENTRY, label: STUDENT, described: `${STUDENT}/ as committed in ${commit}` };
}

/** A folder of the handout's code named with --base, read as the intake reads a submission. */
export function handoutFolder(dir: string): Handout {
  const taken = take(dir, path.basename(dir));
  if (taken instanceof Error) throw new HandoutError(`the handout folder ${dir} could not be read: ${taken.message}`);
  return { files: taken.files, entry: taken.entry, label: taken.label, described: `${dir} (--base)` };
}
