/**
 * How a spreadsheet cuts a CSV line into cells: on `,`, `;` or TAB (whichever its locale or the
 * import dialog says), honouring double quotes or not (both exist). For the tests of CSV cells.
 */

export const SEPARATORS = [',', ';', '\t'] as const;

export function spreadsheetCells(line: string, separator: string, quotes: boolean): string[] {
  if (!quotes) return line.split(separator);
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted && ch === '"' && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === separator) {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  return [...cells, cell];
}

/** The cells of `csv` a spreadsheet would run as a formula, cut every way it may cut them (numbers are numbers). */
export function formulaCells(csv: string): string[] {
  const found: string[] = [];
  for (const line of csv.split(/\r\n|\n|\r/)) {
    for (const separator of SEPARATORS) {
      for (const quotes of [true, false]) {
        for (const cell of spreadsheetCells(line, separator, quotes)) {
          const shown = cell.replace(/^\s+/, '');
          if (/^[=+\-@]/.test(shown) && !/^-?\d+(\.\d+)?$/.test(shown.trim())) found.push(`${JSON.stringify(cell)} (split on ${JSON.stringify(separator)}${quotes ? '' : ', quotes ignored'})`);
        }
      }
    }
  }
  return found;
}
