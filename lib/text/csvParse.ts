/**
 * Reading a CSV: ours (grades.csv read back), or one a person or a system exported (a roster,
 * Canvas's gradebook, a file of submission times or extensions). RFC 4180, and what exporters add
 * to it: a byte-order mark, and `;` between fields where the locale writes decimal commas (Excel's
 * and Canvas's exports in such locales).
 */

/** `;` when the first line (outside quotes) has more of them than commas; else `,`. */
export function separatorOf(text: string): ',' | ';' {
  let quoted = false;
  const count = { ',': 0, ';': 0 };
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && (ch === ',' || ch === ';')) count[ch]++;
  }
  return count[';'] > count[','] ? ';' : ',';
}

/** Fields of each line (RFC 4180: quotes, doubled quotes, separators and line breaks inside quotes); blank lines left out. */
export function parseCsv(text: string): string[][] {
  // A byte-order mark (csvText writes one; Excel and Canvas may too) is not part of the first field.
  text = text.replace(/^\uFEFF/, '');
  const separator = separatorOf(text);
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') [field, i] = [field + '"', i + 1];
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === separator) [row, field] = [[...row, field], ''];
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      rows.push([...row, field]);
      [row, field] = [[], ''];
    } else field += ch;
  }
  if (field !== '' || row.length) rows.push([...row, field]);
  return rows.filter((r) => r.some((f) => f.trim() !== ''));
}

/** A CSV with a header as records by column name (for reading back a gradebook). */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  return rows.map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])));
}
