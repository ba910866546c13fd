/**
 * Names the grader meets on disk (a batch's submission folders, the files inside a submission) as
 * text. On Linux a name is bytes; Node decodes it as UTF-8 and turns every byte that is not UTF-8
 * into U+FFFD, so folders `a\xff` and `a\xfe` read as one name that opens neither. Read as bytes
 * here, a name keeps each such byte as a lone surrogate U+DC80 + byte (Python's "surrogateescape",
 * PEP 383): distinct folders keep distinct names, no UTF-8 name can look like one, and the bytes
 * come back exactly (nameBytes). Such a name is never opened: the intake refuses it with a reason
 * (notText), and messages show the bytes as `\xFF` (lib/text/sanitise.ts).
 */
import fs from 'node:fs';

/** A lone surrogate that stands for one byte that is not UTF-8 (the `u` flag: never half of a pair). */
export const ESCAPED_BYTE = /[\uDC80-\uDCFF]/u;

/** The length of the UTF-8 sequence that starts at `at`, or 0 when the bytes there are not one. */
function sequenceAt(bytes: Uint8Array, at: number): number {
  const b0 = bytes[at];
  if (b0 < 0x80) return 1;
  const need = b0 >= 0xc2 && b0 <= 0xdf ? 2 : b0 >= 0xe0 && b0 <= 0xef ? 3 : b0 >= 0xf0 && b0 <= 0xf4 ? 4 : 0;
  if (need === 0 || at + need > bytes.length) return 0;
  for (let i = 1; i < need; i++) if ((bytes[at + i] & 0xc0) !== 0x80) return 0;
  const b1 = bytes[at + 1];
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8 either.
  if (b0 === 0xe0 && b1 < 0xa0) return 0;
  if (b0 === 0xed && b1 >= 0xa0) return 0;
  if (b0 === 0xf0 && b1 < 0x90) return 0;
  if (b0 === 0xf4 && b1 >= 0x90) return 0;
  return need;
}

/** A name's bytes as text: UTF-8 where they are UTF-8, every other byte as U+DC80 + byte. */
export function nameFromBytes(bytes: Uint8Array): string {
  let text = '';
  let start = 0;
  for (let at = 0; at < bytes.length; ) {
    const length = sequenceAt(bytes, at);
    if (length > 0) {
      at += length;
      continue;
    }
    text += Buffer.from(bytes.subarray(start, at)).toString('utf8') + String.fromCharCode(0xdc00 + bytes[at]);
    start = ++at;
  }
  return text + Buffer.from(bytes.subarray(start)).toString('utf8');
}

/** The bytes a name read by nameFromBytes came from. */
export function nameBytes(name: string): Buffer {
  if (!ESCAPED_BYTE.test(name)) return Buffer.from(name, 'utf8');
  const parts: Buffer[] = [];
  for (const char of name) {
    parts.push(ESCAPED_BYTE.test(char) ? Buffer.of(char.charCodeAt(0) - 0xdc00) : Buffer.from(char, 'utf8'));
  }
  return Buffer.concat(parts);
}

/** Why a name read from disk cannot be used as it is, or undefined: bytes that are not UTF-8. */
export function notText(name: string): string | undefined {
  return ESCAPED_BYTE.test(name) ? 'is not UTF-8 text (each \\xNN here stands for a byte that is not)' : undefined;
}

/** An entry of a folder, its name read by nameFromBytes. */
export interface NamedEntry {
  name: string;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/**
 * A folder's entries, named by nameFromBytes and sorted by name. `charge` is called before each
 * entry is taken, as it is read: a walk's budget (walkBudget.ts) that throws stops the listing there,
 * so a folder of a million names costs no more than the names the budget allows.
 */
export function listNames(dir: string | Buffer, charge: () => void = () => {}): NamedEntry[] {
  const entries: NamedEntry[] = [];
  // Node reads names as bytes with encoding 'buffer', which its types do not list for opendir.
  const handle = fs.opendirSync(dir, { encoding: 'buffer' as BufferEncoding }) as unknown as { readSync(): fs.Dirent<Buffer> | null; closeSync(): void };
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
      charge();
      const dirent = entry;
      entries.push({ name: nameFromBytes(dirent.name), isDirectory: () => dirent.isDirectory(), isSymbolicLink: () => dirent.isSymbolicLink() });
    }
  } finally {
    handle.closeSync();
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
