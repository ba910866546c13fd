/**
 * One budget for every walk of a tree that someone else shaped: a submission's folder, an upload,
 * a fetched repository's tree, a shard's files. Each entry is charged before it is counted, each
 * folder before it is entered, each file's size before it is read, written or copied; a walk never
 * charges a listing at once, so a folder of a million names stops at the first name past the cap
 * instead of being read whole (a cap checked per listing once let 5,503 entries through one of 500).
 * A refusal is one line naming the cap, the path where it was crossed and the fix, as the error
 * the walk's caller raises.
 */

/** Caps of one walk; Infinity for a cap the walk does not need. */
export interface WalkCaps {
  /** Files and folders counted, together. */
  entries: number;
  /** Folders nested below the root. */
  depth: number;
  /** One file charged. */
  fileBytes: number;
  /** Every file charged, together. */
  totalBytes: number;
}

export type Cap = keyof WalkCaps;

/** How a walk's refusals read. */
export interface WalkWords {
  /** What is walked, as a refusal names it: "the submission", "the repository". */
  whole: string;
  /** A file whose bytes are charged: "code file", "file". */
  file: string;
  /** The fix each cap's refusal ends with. */
  fix: Record<Cap, string>;
}

/** A size as a reader takes it in: bytes below a KiB, else KiB or MiB, exact when it is whole. */
export function sizeWords(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [unit, scale] = bytes < 1024 ** 2 ? ['KiB', 1024] : ['MiB', 1024 ** 2];
  const value = bytes / scale;
  return `${Number.isInteger(value) ? value : Math.round(value * 10) / 10} ${unit}`;
}

/** A size that must be told apart from a cap it is one byte past: exact. */
const exactBytes = (bytes: number) => `${bytes.toLocaleString('en-US')} bytes`;

export class WalkBudget {
  private entries = 0;
  private bytes = 0;

  /** `fail` makes the caller's own error from a refusal's line (what it branches on, e.g. IntakeError). */
  constructor(readonly caps: WalkCaps, private readonly words: WalkWords, private readonly fail: (message: string, cap: Cap) => Error) {}

  private refuse(cap: Cap, where: string, what: string): never {
    throw this.fail(`${where} ${what}: ${this.words.fix[cap]}`, cap);
  }

  /** One more file or folder, found at `where` (the entry, or the folder whose listing holds it). */
  entry(where: string): void {
    if (this.entries >= this.caps.entries) this.refuse('entries', where, `takes ${this.words.whole} past ${this.caps.entries} files and folders`);
    this.entries++;
  }

  /** Before entering the folder `where`, nested `level` folders below the root (1 for a folder of the root). */
  folder(where: string, level: number): void {
    if (level > this.caps.depth) this.refuse('depth', where, `is more than ${this.caps.depth} folders deep`);
  }

  /** Before the bytes of the file `where` are read, written or copied. */
  file(where: string, size: number): void {
    if (size > this.caps.fileBytes) {
      this.refuse('fileBytes', where, `is ${exactBytes(size)}; a ${this.words.file} may be at most ${sizeWords(this.caps.fileBytes)}`);
    }
    if (this.bytes + size > this.caps.totalBytes) {
      this.refuse('totalBytes', where, `takes ${this.words.whole} past ${sizeWords(this.caps.totalBytes)} of ${this.words.file}s`);
    }
    this.bytes += size;
  }
}

/** A refusal no one reads: the walk only asks whether the tree fits (a note, a measure). */
export class OverBudget extends Error {
  override name = 'OverBudget';
}

const UNREAD: WalkWords = { whole: '', file: '', fix: { entries: '', depth: '', fileBytes: '', totalBytes: '' } };

/** A budget whose refusals are OverBudget, for a walk that asks rather than refuses. */
export const quietBudget = (caps: WalkCaps) => new WalkBudget(caps, UNREAD, () => new OverBudget());
