/**
 * What a fetched repository may hold: regular files and folders, nothing else. Anything else is a
 * reason the repository is not fetched, naming the entry: a symbolic link (it would be graded as
 * its target's bytes once something copies the folder: the reference, a classmate's file), a
 * submodule, and whatever the file system shows that is neither a file nor a folder.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A path as a reason may show it: quoted, escaped, bounded. */
const shown = (file: string) => (JSON.stringify(file.length > 120 ? `${file.slice(0, 120)}…` : file));

/** Git's modes that are not a regular file (100644, 100755) or a folder. */
const MODES: Record<string, string> = {
  '120000': 'a symbolic link',
  '160000': 'a submodule (a link to another repository)',
};

/** Why `git ls-tree -r -z` output holds something other than regular files, or undefined. */
export function treeProblem(listing: string): string | undefined {
  for (const record of listing.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode] = record.slice(0, tab).split(' ');
    const file = record.slice(tab + 1);
    if (mode === '100644' || mode === '100755') continue;
    return `${shown(file)} is ${MODES[mode] ?? `an entry of git mode ${mode}`}: a submission is regular files only; commit the file itself`;
  }
  return undefined;
}

/** Why the checked-out folder holds something that is neither a regular file nor a folder (its .git aside), or undefined. */
export function notRegular(dir: string): string | undefined {
  const queue = [''];
  for (let relative = queue.shift(); relative !== undefined; relative = queue.shift()) {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const file = relative ? `${relative}/${entry.name}` : entry.name;
      if (file === '.git') continue;
      if (entry.isDirectory()) queue.push(file);
      else if (!entry.isFile()) return `${shown(file)} is not a regular file: a submission is regular files only; commit the file itself`;
    }
  }
  return undefined;
}
