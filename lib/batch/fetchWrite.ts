/**
 * Writes a fetched commit's files from its blobs, as they were committed, once its tree was read
 * within the budget (fetchedEntries.ts): folders made one by one, each file created anew (never
 * through a link, never over another entry) and filled from `git cat-file --batch` as git streams
 * it, each of exactly the size the tree said. No checkout runs, so no filter does either: not Git
 * LFS's smudge (which would download whatever a pointer names), not the attributes that grow a
 * file past what was counted (eol=crlf, ident, working-tree-encoding).
 */
import fs from 'node:fs';
import { nameFromBytes } from '../intake/names';
import { Refused, shown, type TreeEntry } from './fetchedEntries';
import type { GitOptions } from './fetchGit';
import { runGit } from './fetchGit';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

/** A path under `dest` as bytes (names need not be UTF-8). */
const under = (dest: string, path: Buffer) => Buffer.concat([Buffer.from(`${dest}/`), path]);

function written<T>(entry: TreeEntry, make: () => T): T {
  try {
    return make();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new Refused(`${shown(nameFromBytes(entry.path))} could not be written (${code}): a checkout could not write it either; rename or remove it`);
  }
}

/**
 * Reads `<oid> blob <size>\n<bytes>\n` records, each into the next file's descriptor; the header
 * must name the blob and size the tree promised.
 */
class BlobWriter {
  private at = 0;
  private fd: number | undefined;
  private left = 0;
  private header = Buffer.alloc(0);

  constructor(private readonly dest: string, private readonly files: readonly TreeEntry[]) {}

  push(chunk: Buffer): void {
    while (chunk.length > 0) {
      if (this.fd === undefined) chunk = this.readHeader(chunk);
      else {
        const body = chunk.subarray(0, this.left);
        const fd = this.fd;
        written(this.files[this.at], () => {
          for (let done = 0; done < body.length; ) done += fs.writeSync(fd, body, done);
        });
        this.left -= body.length;
        chunk = chunk.subarray(body.length);
        if (this.left === 0 && chunk.length > 0) {
          // Each blob ends with a newline of cat-file's own.
          chunk = chunk.subarray(1);
          this.close();
        }
      }
    }
  }

  private readHeader(chunk: Buffer): Buffer {
    const newline = chunk.indexOf(0x0a);
    this.header = Buffer.concat([this.header, newline < 0 ? chunk : chunk.subarray(0, newline)]);
    if (this.header.length > 200) throw new Refused('git answered in a form this grader does not read: fetch it again');
    if (newline < 0) return Buffer.alloc(0);
    const entry = this.files[this.at];
    const [oid, type, size] = this.header.toString('latin1').split(' ');
    this.header = Buffer.alloc(0);
    if (!entry || oid !== entry.oid || type !== 'blob' || Number(size) !== entry.size) {
      throw new Refused(`${entry ? shown(nameFromBytes(entry.path)) : 'a file'} is not in the repository as its tree says: fetch it again`);
    }
    this.fd = written(entry, () => fs.openSync(under(this.dest, entry.path), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, entry.mode === '100755' ? 0o755 : 0o644));
    this.left = entry.size;
    return chunk.subarray(newline + 1);
  }

  private close(): void {
    fs.closeSync(this.fd!);
    this.fd = undefined;
    this.at++;
  }

  /** Every file written whole. */
  end(): void {
    if (this.fd !== undefined && this.left === 0) this.close();
    if (this.fd !== undefined) fs.closeSync(this.fd);
    if (this.at !== this.files.length) throw new Refused('git stopped before every file was written: fetch it again');
  }
}

/** Writes `entries` (in the tree's order: a folder before what it holds) into `dest`, which must not exist. */
export async function writeEntries(entries: readonly TreeEntry[], dest: string, git: Omit<GitOptions, 'onStdout' | 'input'>): Promise<string | undefined> {
  try {
    fs.mkdirSync(dest, { mode: 0o755 });
    for (const entry of entries) if (entry.kind === 'folder') written(entry, () => fs.mkdirSync(under(dest, entry.path), { mode: 0o755 }));
    const files = entries.filter((e) => e.kind === 'file');
    if (files.length === 0) return undefined;
    const writer = new BlobWriter(dest, files);
    const run = await runGit(['cat-file', '--batch'], { ...git, input: Buffer.from(files.map((f) => `${f.oid}\n`).join('')), onStdout: (chunk) => writer.push(chunk) });
    if (run.failure && !(run.failure instanceof Refused)) throw run.failure;
    if (!run.ok) return run.err;
    writer.end();
    return undefined;
  } catch (err) {
    if (err instanceof Refused) return err.message;
    throw err;
  }
}
