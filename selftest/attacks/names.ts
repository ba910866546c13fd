/**
 * Folder and file names of every class the intake meets, drawn from a seed, as bytes (a name on
 * disk is bytes; some are not UTF-8): random bytes, the longest names a file system allows in
 * several scripts, case and Unicode-form variants of one name, names a platform reserves or that
 * look like the batch's own files or stems, control characters and workflow commands. Used by the
 * unit tests of the layout and the sanitiser, and by the batch attack (names.test.ts).
 */
import seedrandom from 'seedrandom';

export interface DrawnName {
  /** The name's bytes: never '/', never NUL, 1 to 255 of them. */
  bytes: Buffer;
  /** Which class it was drawn from. */
  kind: string;
}

/** A file system's limit on one name, in bytes. */
export const NAME_MAX = 255;

/** As many whole copies of `unit` as fit in NAME_MAX bytes. */
const longest = (unit: string) => unit.repeat(Math.floor(NAME_MAX / Buffer.byteLength(unit)));

const FIXED: [kind: string, name: string][] = [
  ['plain', 'alice'],
  ['case', 'Alice'],
  ['case', 'ALICE'],
  ['case', 'aLiCe'],
  ['normalisation', 'jos\u00e9'],
  ['normalisation', 'jose\u0301'],
  ['normalisation', '\ufb01le'],
  ['normalisation', 'file'],
  ['spaces', ' alice'],
  ['spaces', 'alice '],
  ['long', longest('A')],
  ['long', longest('Я')],
  ['long', longest('\u6f22')],
  ['long', longest('\u{1f600}')],
  ['long', longest('e\u0301')],
  ['long', longest('\u0627')],
  ['reserved', 'con'],
  ['reserved', 'NUL'],
  ['reserved', 'com1'],
  ['reserved', 'lpt9'],
  ['reserved', '...'],
  ['reserved', '-'],
  ['reserved', '--'],
  ['reserved', '-rf'],
  ['own files', 'batch'],
  ['own files', 'batch.json'],
  ['own files', 'grades.csv'],
  ['own files', 'report.html'],
  ['own files', 'submissions'],
  ['own files', 'alice.json'],
  ['own files', 'alice.html'],
  ['stem lookalike', 'alice--aaaaaaaaaaaaaaaaaaaaaaaaaa'],
  ['stem lookalike', 'submission'],
  ['stem lookalike', '%41lice'],
  ['control', 'evil\u001b[2J\u001b[31m::error::owned\r##[group]x\u0007'],
  ['control', 'line\nbreak'],
  ['control', 'tab\tbed'],
  ['control', 'bidi\u202eexe.txt'],
  ['formula', 'x;=1+2;'],
  ['formula', '=HYPERLINK("x.example")'],
  ['formula', '@SUM(A1)\t-2'],
  ['quotes', 'a "quoted" \'name\''],
];

/** Random bytes: any but '/' and NUL, so often not UTF-8. */
function randomBytes(next: () => number): Buffer {
  const length = 1 + Math.floor(next() * 40);
  return Buffer.from(Array.from({ length }, () => {
    for (;;) {
      const byte = Math.floor(next() * 256);
      if (byte !== 0 && byte !== 0x2f) return byte;
    }
  }));
}

/** Text from one script, up to the byte limit. */
function randomText(next: () => number): Buffer {
  const scripts = [[0x41, 0x5a], [0x61, 0x7a], [0x410, 0x44f], [0x4e00, 0x9fff], [0x1f600, 0x1f64f], [0x3b1, 0x3c9], [0x5d0, 0x5ea]];
  const [lo, hi] = scripts[Math.floor(next() * scripts.length)];
  let text = '';
  const target = Math.floor(next() * NAME_MAX);
  for (;;) {
    const char = String.fromCodePoint(lo + Math.floor(next() * (hi - lo + 1)));
    if (Buffer.byteLength(text + char) > target) break;
    text += char;
  }
  return Buffer.from(text || 'x');
}

/**
 * The fixed names (each class's examples), then `count` drawn from `seed`: random bytes, random
 * text in a script, and case variants of what was drawn. Names are unique by bytes, and none is
 * `.` or `..` or starts with `.` (a batch does not list those).
 */
export function drawNames(seed: string, count: number): DrawnName[] {
  const next = seedrandom(seed);
  const drawn: DrawnName[] = FIXED.map(([kind, name]) => ({ kind, bytes: Buffer.from(name) }));
  for (let i = 0; i < count; i++) {
    const pick = next();
    if (pick < 0.4) drawn.push({ kind: 'random bytes', bytes: randomBytes(next) });
    else if (pick < 0.8) drawn.push({ kind: 'random text', bytes: randomText(next) });
    else {
      const base = randomText(next).toString('utf8');
      drawn.push({ kind: 'case', bytes: Buffer.from(base.toUpperCase()) }, { kind: 'case', bytes: Buffer.from(base.toLowerCase()) });
    }
  }
  const seen = new Set<string>();
  return drawn.filter(({ bytes }) => {
    const key = bytes.toString('hex');
    if (bytes.length > NAME_MAX || bytes[0] === 0x2e || bytes.includes(0x2f) || bytes.includes(0) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
