import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { drawNames } from '../../selftest/attacks/names';
import { nameFromBytes } from '../intake/names';
import { csvCell } from '../report/csv';
import { oneLine, showName, spreadsheetCell } from './sanitise';

/** A spreadsheet's import: cells split on `separator`, honouring double quotes or not (both exist). */
function cells(line: string, separator: string, quotes: boolean): string[] {
  if (!quotes) return line.split(separator);
  const out: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted && ch === '"' && line[i + 1] === '"') [cell, i] = [cell + '"', i + 1];
    else if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === separator) {
      out.push(cell);
      cell = '';
    }
    else cell += ch;
  }
  return [...out, cell];
}

const FORMULA = /^[=+\-@]/;
const NUMBER = /^-?\d+(\.\d+)?$/;

function drawnTexts(): string[] {
  const next = seedrandom('csv');
  const alphabet = ['=', '+', '-', '@', ';', ',', '\t', '\n', '\r', '"', "'", ' ', 'a', '1', '(', 'SUM', '\u001b'];
  const random = Array.from({ length: 3000 }, () => Array.from({ length: 1 + Math.floor(next() * 12) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''));
  return [...drawNames('csv', 500).map(({ bytes }) => nameFromBytes(bytes)), ...random, 'x;=1+2;', 'a\t=cmd', ' ;\t@A1'];
}

describe('a CSV text cell, whatever separator a spreadsheet splits on', () => {
  it('no cell a spreadsheet can cut from it starts a formula, with or without honouring the quotes', () => {
    const wrong: string[] = [];
    for (const text of drawnTexts()) {
      const line = [csvCell(text), csvCell(-0.5), csvCell(12)].join(',');
      for (const separator of [',', ';', '\t']) {
        for (const quotes of [true, false]) {
          for (const cell of cells(line, separator, quotes)) {
            const shown = cell.replace(/^[\s]+/, '');
            if (FORMULA.test(shown) && !NUMBER.test(shown.trim())) wrong.push(`${JSON.stringify(text)} split on ${JSON.stringify(separator)}${quotes ? '' : ' ignoring quotes'}: ${JSON.stringify(cell)}`);
          }
        }
      }
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it('a cell read back by an RFC 4180 reader is the guarded text, with no control character', () => {
    const wrong = drawnTexts().filter((text) => {
      const [back] = cells(csvCell(text), ',', true);
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
