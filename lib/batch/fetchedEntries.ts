/**
 * What a fetched repository may hold, read from its commit's tree before anything of it is
 * written (`git ls-tree -r -t -l -z`, streamed): regular files and folders only, within the fetch's
 * walk budget (lib/intake/walkBudget.ts: entries, depth, each file's size and all of them, charged
 * record by record as git prints them, in git's order), with names a file system can hold. Anything
 * else is the reason the repository is not fetched, naming the entry: a symbolic link (it would be
 * graded as its target's bytes once something copies the folder: the reference, a classmate's
 * file), a submodule (never fetched: it is another repository), an entry of another mode, a name
 * no checkout may write ("..", ".git"). A 196 KB push of nested trees that a checkout expanded to
 * 100,001 files, or a 596 KB one to a 100 MB file, is refused here from its tree.
 */
import { nameFromBytes } from '../intake/names';
import { WalkBudget, type WalkCaps } from '../intake/walkBudget';

/** A path as a reason may show it: quoted, escaped, bounded. */
export const shown = (file: string) => JSON.stringify(file.length > 120 ? `${file.slice(0, 120)}…` : file);

/** One entry of the tree, to be written: a folder, or a file with its blob. */
export interface TreeEntry {
  kind: 'folder' | 'file';
  /** The path's bytes, relative to the repository's root. */
  path: Buffer;
  /** Git's mode, 100755 for an executable file. */
  mode: string;
  oid: string;
  size: number;
}

/** Why the repository is not fetched: one line, naming the entry. */
export class Refused extends Error {
  override name = 'Refused';
}

/** Git's modes that are not a regular file (100644, 100755) or a folder. */
const MODES: Record<string, string> = {
  '120000': 'a symbolic link',
  '160000': 'a submodule (a link to another repository)',
};

const NAME_MAX = 255;
const PATH_MAX = 4096;

const FIX = {
  entries: 'commit only the assignment (no node_modules, data or builds)',
  depth: 'flatten its folders',
  fileBytes: 'remove it from the repository (a submission is code)',
  totalBytes: 'remove large files from the repository (a submission is code)',
};

function checkName(path: Buffer, where: string): void {
  if (path.length > PATH_MAX) throw new Refused(`${where} is a path too long for a file system (${path.length} bytes; at most ${PATH_MAX}): shorten it`);
  for (let start = 0; start <= path.length; ) {
    const end = path.indexOf(0x2f, start) < 0 ? path.length : path.indexOf(0x2f, start);
    const name = path.subarray(start, end).toString('latin1');
    if (name.length > NAME_MAX) throw new Refused(`${where} has a name too long for a file system (${name.length} bytes; at most ${NAME_MAX}): rename it`);
    if (name === '' || name === '.' || name === '..' || name.toLowerCase() === '.git') {
      throw new Refused(`${where} is a path no checkout may write (${JSON.stringify(name)} in it): the repository's tree is not one git makes`);
    }
    start = end + 1;
  }
}

/**
 * Reads `git ls-tree -r -t -l -z` output chunk by chunk, charging each record before it is kept;
 * throws Refused at the first record past the budget or that is not a file or a folder.
 */
export class TreeReader {
  readonly entries: TreeEntry[] = [];
  private pending = Buffer.alloc(0);
  private readonly budget: WalkBudget;

  constructor(caps: WalkCaps) {
    this.budget = new WalkBudget(caps, { whole: 'the repository', file: 'file', fix: FIX }, (message) => new Refused(message));
  }

  push(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (let end = this.pending.indexOf(0); end >= 0; end = this.pending.indexOf(0)) {
      this.record(this.pending.subarray(0, end));
      this.pending = this.pending.subarray(end + 1);
    }
    // A record is a mode, a type, an id, a size and a path: one longer than that is a path no file system holds.
    if (this.pending.length > PATH_MAX + 200) throw new Refused(`a path of more than ${PATH_MAX} bytes is a path too long for a file system: shorten it`);
  }

  /** The entries, once git has printed them all. */
  end(): TreeEntry[] {
    if (this.pending.length > 0) throw new Refused('git listed the tree incompletely: fetch it again');
    return this.entries;
  }

  private record(record: Buffer): void {
    const tab = record.indexOf(0x09);
    if (tab < 0) throw new Refused('git listed the tree in a form this grader does not read: fetch it again');
    const [mode, type, oid, size] = record.subarray(0, tab).toString('latin1').split(/ +/);
    const path = Buffer.from(record.subarray(tab + 1));
    const where = shown(nameFromBytes(path));
    this.budget.entry(where);
    if (mode in MODES || (type !== 'tree' && type !== 'blob')) {
      throw new Refused(`${where} is ${MODES[mode] ?? `an entry of git mode ${mode}`}: a submission is regular files only; commit the file itself`);
    }
    checkName(path, where);
    if (type === 'tree') {
      this.budget.folder(where, path.toString('latin1').split('/').length);
      this.entries.push({ kind: 'folder', path, mode, oid, size: 0 });
      return;
    }
    if (mode !== '100644' && mode !== '100755') throw new Refused(`${where} is an entry of git mode ${mode}: a submission is regular files only; commit the file itself`);
    this.budget.file(where, Number(size));
    this.entries.push({ kind: 'file', path, mode, oid, size: Number(size) });
  }
}
