import { describe, expect, it } from 'vitest';
import { drawNames } from '../../selftest/attacks/names';
import { nameFromBytes } from '../intake/names';
import { fileStem, pageFile, resultsFile } from './layout';

const NAMES = drawNames('layout', 3000).map(({ bytes }) => nameFromBytes(bytes));

describe('a submission\'s file names', () => {
  it('plain lowercase names are their own stem; any other is a readable slug and a hash', () => {
    expect(fileStem('alice')).toBe('alice');
    expect(fileStem('bob-2')).toBe('bob-2');
    expect(fileStem('a_b')).toBe('a_b');
    expect(fileStem('Alice Smith')).toMatch(/^alice-smith--[a-z2-7]{26}$/);
    expect(fileStem('José Müller')).toMatch(/^jose-muller--[a-z2-7]{26}$/);
    expect(fileStem('Я'.repeat(40))).toMatch(/^submission--[a-z2-7]{26}$/);
    expect(pageFile('alice')).toBe('submissions/alice.html');
    expect(resultsFile('alice')).toBe('submissions/alice.json');
  });

  it('names Windows reserves, names with --, and names like the batch\'s own files get a hash', () => {
    for (const name of ['con', 'nul', 'com1', 'lpt9', 'alice--aaaaaaaaaaaaaaaaaaaaaaaaaa', 'batch.json', 'grades.csv', '-', '-rf', 'x-']) {
      expect(fileStem(name), name).toMatch(/--[a-z2-7]{26}$/);
    }
  });

  it(`over ${NAMES.length} generated names (random bytes, long names in several scripts, case and Unicode-form variants): bounded, portable, and no two share a file even where case is ignored`, () => {
    const stems = new Map<string, string>();
    const wrong: string[] = [];
    for (const name of NAMES) {
      const stem = fileStem(name);
      // Bytes, not characters: a file system limits a name to 255 bytes; ours stay far below.
      if (Buffer.byteLength(`${stem}.html`) > 73 || !/^[a-z0-9_][a-z0-9_-]*$/.test(stem) || /^(con|prn|aux|nul|com\d|lpt\d)$/.test(stem)) wrong.push(`${JSON.stringify(name)}: ${stem}`);
      const other = stems.get(stem.toLowerCase());
      if (other !== undefined && other !== name) wrong.push(`${JSON.stringify(name)} and ${JSON.stringify(other)} share ${stem}`);
      stems.set(stem.toLowerCase(), name);
    }
    expect(wrong).toEqual([]);
    expect(stems.size).toBe(NAMES.length);
  });

  it('the stem is of the exact bytes: names that differ only by case, Unicode form or a byte that is not UTF-8 stay apart', () => {
    const pairs = [['Alice', 'ALICE'], ['jos\u00e9', 'jose\u0301'], [nameFromBytes(Buffer.from([0x61, 0xff])), nameFromBytes(Buffer.from([0x61, 0xfe]))]];
    for (const [a, b] of pairs) expect(fileStem(a)).not.toBe(fileStem(b));
  });
});
