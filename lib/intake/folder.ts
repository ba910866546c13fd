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
import { listNames, notText, type NamedEntry } from './names';
import { showName } from '../text/sanitise';

export const INTAKE_LIMITS = {
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

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

function refuse(label: string, relative: string, what: string, fix: string): never {
  throw new IntakeError(`${showName(relative ? `${label}/${relative}` : label)} ${what}: ${fix}`);
}

/**
 * A folder's entries sorted by name, or undefined when it holds more than `room`; each name as
 * lib/intake/names.ts reads it, so a name that is not UTF-8 is seen as such instead of as another.
 */
export function listFolder(dir: string, room: number): NamedEntry[] | undefined {
  return listNames(dir, room);
}

interface Found {
  relative: string;
  stat: fs.Stats;
}

/** Every code file under `root` (posix paths relative to it), after checking the whole tree. */
function walk(root: string, label: string): Found[] {
  const code: Found[] = [];
  let entries = 0;
  let total = 0;
  const visit = (dir: string, relativeDir: string, depth: number) => {
    const listed = listFolder(dir, INTAKE_LIMITS.entries - entries);
    if (!listed) refuse(label, '', `holds more than ${INTAKE_LIMITS.entries} files and folders`, 'submit only your code');
    for (const { name } of listed) {
      const relative = relativeDir ? `${relativeDir}/${name}` : name;
      entries++;
      const odd = notText(name);
      if (odd) refuse(label, relative, `has a name that ${odd}`, 'rename it (letters, digits, - and _ are safe everywhere)');
      const stat = fs.lstatSync(path.join(dir, name));
      const kind = kindOf(stat);
      if (kind) refuse(label, relative, `is ${kind}, which a submission may not contain`, 'replace it with a plain file (a copy) or remove it');
      if (stat.isDirectory()) {
        if (depth >= INTAKE_LIMITS.depth) refuse(label, relative, `is more than ${INTAKE_LIMITS.depth} folders deep`, 'flatten your folders');
        visit(path.join(dir, name), relative, depth + 1);
        continue;
      }
      if (!CODE_FILE.test(name)) continue;
      if (stat.size > INTAKE_LIMITS.fileBytes) {
        refuse(label, relative, `is ${mib(stat.size)}; a code file may be at most ${mib(INTAKE_LIMITS.fileBytes)}`, 'remove generated or pasted data');
      }
      total += stat.size;
      if (total > INTAKE_LIMITS.totalBytes) {
        refuse(label, '', `holds more than ${mib(INTAKE_LIMITS.totalBytes)} of code`, 'remove generated or pasted data');
      }
      code.push({ relative, stat });
    }
  };
  visit(root, '', 0);
  return code;
}

/** One file's bytes, opened without following a link and checked to be the file that was walked. */
function readChecked(root: string, label: string, { relative, stat }: Found): Buffer {
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
    const buffer = Buffer.alloc(Math.min(opened.size, INTAKE_LIMITS.fileBytes) + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = fs.readSync(fd, buffer, length, buffer.length - length, length)) > 0; ) length += n;
    if (length > INTAKE_LIMITS.fileBytes) refuse(label, relative, `is over ${mib(INTAKE_LIMITS.fileBytes)}`, 'remove generated or pasted data');
    return buffer.subarray(0, length);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The code files of a submission folder, by posix path relative to it. Throws IntakeError when the
 * folder holds anything it may not, or more than the caps allow; `label` names the folder in messages.
 */
export function readSubmissionFolder(root: string, label: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const found of walk(root, label)) files.set(found.relative, readChecked(root, label, found));
  return files;
}
