/**
 * Where a batch folder keeps each submission's files: `submissions/<stem>.json` and
 * `submissions/<stem>.html`, beside the batch's own files (grades.csv, report.html, batch.json),
 * which no stem can reach. A stem is a function of the name alone, so every shard, a merge and a
 * rerun find the same files, and batch.json lists the mapping for people and scripts.
 *
 * A stem is readable, bounded and unique, even on a file system that ignores case or Unicode
 * normalisation (macOS, Windows, a zip an artifact travels in):
 * - a name already made of `a–z 0–9 _` and single `-`, at most PLAIN_MAX long and not a name
 *   Windows reserves, is its own stem (`alice`, `bob-2`);
 * - any other name is an ASCII slug of it, then `--`, then 26 base-32 characters (130 bits) of
 *   the sha256 of its exact bytes: `Alice Smith` is `alice-smith--…`, and `Алиса` (no Latin
 *   letter) `submission--…`. A stem of the first kind never holds `--`, so the kinds cannot meet;
 *   two names of the second kind meet only if their hashes do.
 * At most 68 bytes, whatever the name: a file system's limit is 255 bytes a name.
 */
import { createHash } from 'node:crypto';
import { nameBytes } from '../intake/names';

/** The folder of a batch's output that holds one result and one page per submission. */
export const SUBMISSIONS_DIR = 'submissions';
/** The gradebook, one row per submission (lib/batch/gradebook.ts). */
export const GRADES_CSV = 'grades.csv';
/** The batch's own record (lib/batch/record.ts). */
export const RECORD_FILE = 'batch.json';

const PLAIN = /^[a-z0-9_]+(?:-[a-z0-9_]+)*$/;
const PLAIN_MAX = 64;
const SLUG_MAX = 40;
const HASH_CHARS = 26;
/** Device names Windows reserves whatever the extension (`con.json` cannot be created there). */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Uint8Array, chars: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
    if (out.length === chars) break;
  }
  return out;
}

/** The readable part of a hashed stem: Latin letters without their accents, digits and _, the rest one `-`. */
function slug(name: string): string {
  const ascii = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const words = ascii.replace(/[^a-z0-9_]+/g, '-').replace(/^-+|-+$/g, '');
  return words.slice(0, SLUG_MAX).replace(/-+$/, '') || 'submission';
}

/** A submission's name as the stem of its files (see the module's comment). */
export function fileStem(name: string): string {
  if (PLAIN.test(name) && name.length <= PLAIN_MAX && !WINDOWS_RESERVED.test(name)) return name;
  return `${slug(name)}--${base32(createHash('sha256').update(nameBytes(name)).digest(), HASH_CHARS)}`;
}

/**
 * A submission's page in a batch folder, relative to it: `submissions/<stem>.html`. The batch's own
 * files (grades.csv, report.html, batch.json) sit beside that folder, so no name reaches them.
 */
export function pageFile(name: string): string {
  return `${SUBMISSIONS_DIR}/${fileStem(name)}.html`;
}

/** A submission's results.json in a batch folder, relative to it: `submissions/<stem>.json`. */
export function resultsFile(name: string): string {
  return `${SUBMISSIONS_DIR}/${fileStem(name)}.json`;
}

/** Name → stem for the names of a batch, as batch.json lists them. */
export function fileStems(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, fileStem(name)]));
}
