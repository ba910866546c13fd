import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { drawNames } from '../../selftest/attacks/names';
import { formulaCells, spreadsheetCells } from '../../selftest/attacks/spreadsheet';
import { nameFromBytes } from '../intake/names';
import { csvCell } from '../report/csv';
import { oneLine, showName, spreadsheetCell } from './sanitise';


function drawnTexts(): string[] {
  const next = seedrandom('csv');
  const alphabet = ['=', '+', '-', '@', ';', ',', '\t', '\n', '\r', '"', "'", ' ', 'a', '1', '(', 'SUM', '\u001b'];
  const random = Array.from({ length: 3000 }, () => Array.from({ length: 1 + Math.floor(next() * 12) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''));
  return [...drawNames('csv', 500).map(({ bytes }) => nameFromBytes(bytes)), ...random, 'x;=1+2;', 'a\t=cmd', ' ;\t@A1'];
}

describe('a CSV text cell, whatever separator a spreadsheet splits on', () => {
  it('no cell a spreadsheet can cut from it starts a formula, with or without honouring the quotes', () => {
    const wrong = drawnTexts().flatMap((text) => formulaCells([csvCell(text), csvCell(-0.5), csvCell(12)].join(',')).map((cell) => `${JSON.stringify(text)}: ${cell}`));
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it('a cell read back by an RFC 4180 reader is the guarded text, with no control character', () => {
    const wrong = drawnTexts().filter((text) => {
      const [back] = spreadsheetCells(csvCell(text), ',', true);
      // eslint-disable-next-line no-control-regex
      return back !== spreadsheetCell(text) || /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(back);
    });
    expect(wrong).toEqual([]);
  });
});

describe('a name on its way to a log line', () => {
  it('no control character, no workflow command, bytes that are not UTF-8 shown as \\xNN', () => {
    const shown = drawNames('log', 500).flatMap(({ bytes }) => [oneLine(nameFromBytes(bytes)), showName(nameFromBytes(bytes))]);
    // eslint-disable-next-line no-control-regex
    expect(shown.filter((line) => /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|::|[\uDC80-\uDCFF]/u.test(line))).toEqual([]);
  });
});
