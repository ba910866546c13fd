import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { drawNames } from '../../selftest/attacks/names';
import { showName } from '../text/sanitise';
import { listNames, nameBytes, nameFromBytes, notText } from './names';

const isUtf8 = (bytes: Buffer) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe('names read from disk as bytes', () => {
  it('UTF-8 names read as themselves; every other byte as one escaped character', () => {
    expect(nameFromBytes(Buffer.from('Алиса 漢字 😀'))).toBe('Алиса 漢字 😀');
    const odd = nameFromBytes(Buffer.from([0x62, 0x61, 0x64, 0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]));
    expect(notText(odd)).toBeDefined();
    expect(showName(odd)).toBe('"bad\\xFF\\xC3(\\xED\\xA0\\x80"');
    expect(notText('plain')).toBeUndefined();
  });

  it('round-trips the bytes of every generated name, and distinct bytes stay distinct names', () => {
    const drawn = drawNames('names', 2000);
    const names = new Set<string>();
    const wrong: string[] = [];
    for (const { bytes } of drawn) {
      const name = nameFromBytes(bytes);
      if (!nameBytes(name).equals(bytes)) wrong.push(`${bytes.toString('hex')} does not come back`);
      // A second opinion on what is UTF-8: the WHATWG decoder, which refuses any other byte.
      if ((notText(name) === undefined) !== isUtf8(bytes)) wrong.push(`${bytes.toString('hex')} taken for ${isUtf8(bytes) ? 'not ' : ''}UTF-8`);
      names.add(name);
    }
    expect(wrong).toEqual([]);
    expect(names.size).toBe(drawn.length);
  });

  it('lists a folder whose entries are not UTF-8, each under a name of its own', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'names-'));
    try {
      for (const byte of [0xfe, 0xff]) fs.mkdirSync(Buffer.concat([Buffer.from(path.join(dir, 'a')), Buffer.of(byte)]));
      const listed = listNames(dir);
      expect(listed.map((e) => showName(e.name))).toEqual(['"a\\xFE"', '"a\\xFF"']);
      expect(listed.every((e) => e.isDirectory())).toBe(true);
      let charged = 0;
      expect(() => listNames(dir, () => {
        if (++charged > 1) throw new Error('past the budget');
      })).toThrow('past the budget');
      expect(charged).toBe(2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
