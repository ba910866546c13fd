/**
 * Reads a submission folder the way a hostile one must be read: every entry is lstat'ed and never
 * followed, anything but a regular file or a folder (a symbolic or hard link, a device, a FIFO, a
 * socket) is refused with a reason naming it, and the caps on entries, depth and sizes are checked
 * before a byte is read. The grader runs as root, so following a link would read whatever root can.
 *
 * Only code files (.ts, .js) are read: they are all a submission can import. Other regular files
 * are walked (and must be regular) but never opened.
 */
import fs from 'node:fs';
import path from 'node:path';
import { notText } from './names';
import { walkFolder } from './walk';
import { sizeWords, WalkBudget, type WalkCaps } from './walkBudget';
import { showName } from '../text/sanitise';

/** What a submission folder may hold: the caps of the intake's walk (walkBudget.ts). */
export const INTAKE_LIMITS: WalkCaps = {
  /** Entries walked in the folder, files and folders alike. */
  entries: 500,
  /** Folders below the submission folder. */
  depth: 8,
  /** One code file. */
  fileBytes: 1024 * 1024,
  /** All code files together. */
  totalBytes: 4 * 1024 * 1024,
};

export const CODE_FILE = /\.(ts|js)$/;

/**
 * The submission cannot be taken as it is; the message is one line naming the file and the fix.
 * `missing`: there is nothing to grade (no folder, no index.ts); `refused`: there is, but it holds
 * what a submission may not.
 */
export class IntakeError extends Error {
  override name = 'IntakeError';
  constructor(message: string, readonly kind: 'missing' | 'refused' = 'refused') {
    super(message);
  }
}

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = fs.constants;

/** What an entry that is not a regular file or a folder is, in words. */
function kindOf(stat: fs.Stats): string | undefined {
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isFile() && stat.nlink > 1) return 'a hard link (one file under several names)';
  if (!stat.isFile() && !stat.isDirectory()) return 'not a regular file';
  return undefined;
}

const shown = (label: string, relative: string) => showName(relative ? `${label}/${relative}` : label);

function refuse(label: string, relative: string, what: string, fix: string): never {
  throw new IntakeError(`${shown(label, relative)} ${what}: ${fix}`);
}

const FIX = {
  entries: 'submit only your code',
  depth: 'flatten your folders',
  fileBytes: 'remove generated or pasted data',
  totalBytes: 'remove generated or pasted data',
};

interface Found {
  relative: string;
  stat: fs.Stats;
}

/** Every code file under `root` (posix paths relative to it), after checking the whole tree. */
function walk(root: string, label: string, caps: WalkCaps): Found[] {
  const budget = new WalkBudget(caps, { whole: 'the submission', file: 'code file', fix: FIX }, (message) => new IntakeError(message));
  const code: Found[] = [];
  for (const { relative, name, stat } of walkFolder(root, budget, { show: (relative) => shown(label, relative) })) {
    const odd = notText(name);
    if (odd) refuse(label, relative, `has a name that ${odd}`, 'rename it (letters, digits, - and _ are safe everywhere)');
    const kind = kindOf(stat);
    if (kind) refuse(label, relative, `is ${kind}, which a submission may not contain`, 'replace it with a plain file (a copy) or remove it');
    if (!stat.isFile() || !CODE_FILE.test(name)) continue;
    budget.file(shown(label, relative), stat.size);
    code.push({ relative, stat });
  }
  return code;
}

/** One file's bytes, opened without following a link and checked to be the file that was walked. */
function readChecked(root: string, label: string, { relative, stat }: Found, fileBytes: number): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(path.join(root, relative), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  } catch (err) {
    return refuse(label, relative, `could not be opened (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'submit it again');
  }
  try {
    const opened = fs.fstatSync(fd);
    if (!opened.isFile() || opened.ino !== stat.ino || opened.dev !== stat.dev) {
      refuse(label, relative, 'changed while it was being read', 'submit it again');
    }
    // One byte past the cap tells a file that grew since it was walked.
    const buffer = Buffer.alloc(Math.min(opened.size, fileBytes) + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = fs.readSync(fd, buffer, length, buffer.length - length, length)) > 0; ) length += n;
    if (length > fileBytes) refuse(label, relative, `grew past ${sizeWords(fileBytes)} while it was being read`, 'submit it again');
    return buffer.subarray(0, length);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The code files of a submission folder, by posix path relative to it. Throws IntakeError when the
 * folder holds anything it may not, or more than the caps allow; `label` names the folder in messages.
 */
export function readSubmissionFolder(root: string, label: string, caps = INTAKE_LIMITS): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const found of walk(root, label, caps)) files.set(found.relative, readChecked(root, label, found, caps.fileBytes));
  return files;
}
