/**
 * A file of a shard's output, as `npm run merge` reads and copies it. A shard folder is files on
 * disk that anyone with write access could have made (a merge is handed folders by hand, or an
 * artifact of them): a page that is a link to /dev/zero or to a file of the machine would be copied
 * into the gradebook as its target's bytes, a FIFO would hang the merge. Each is lstat'ed, never
 * followed, and must be a regular file of bounded size; it is copied through the descriptor that
 * was checked to be that file.
 */
import fs from 'node:fs';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = fs.constants;

/** What a shard file is when it is not a regular file, or undefined. */
export function notRegular(stat: fs.Stats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isDirectory()) return 'a folder';
  return 'a special file (a FIFO, a socket or a device)';
}

/** lstat, or undefined when there is no such file. */
export function lstatOrNone(file: string): fs.Stats | undefined {
  return fs.lstatSync(file, { throwIfNoEntry: false });
}

/**
 * The bytes of `file`, which lstat showed as `stat` (a regular file of at most `maxBytes`), read
 * through a descriptor opened without following a link and checked to be that same file.
 */
export function readChecked(file: string, stat: fs.Stats, maxBytes: number): Buffer | 'changed' {
  const fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  try {
    const opened = fs.fstatSync(fd);
    if (!opened.isFile() || opened.ino !== stat.ino || opened.dev !== stat.dev || opened.size > maxBytes) return 'changed';
    // One byte past the size tells a file that grew since it was looked at.
    const buffer = Buffer.alloc(opened.size + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = fs.readSync(fd, buffer, length, buffer.length - length, length)) > 0; ) length += n;
    return length > opened.size ? 'changed' : buffer.subarray(0, length);
  } finally {
    fs.closeSync(fd);
  }
}
