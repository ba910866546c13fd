/**
 * The one sanitiser for text that came from a submission (what its code threw or printed, its
 * file and folder names) on its way to a terminal, a log, a CSV or a GitHub workflow log. Every
 * writer of such text calls one of these; none keeps its own rules.
 *
 * Why each rule:
 * - C0/C1 control characters (ESC, CSI, \r, BEL…) would let student text repaint a terminal, erase
 *   the line before it or hide itself; U+2028/2029 and the bidi controls reorder what is shown.
 * - The GitHub runner (actions/runner, ActionCommand.cs) runs a workflow command from any log line
 *   that starts with `::` once trimmed, and a legacy `##[command]` found anywhere in a line; a
 *   zero-width space breaks both markers and is invisible where the text is read.
 * - A name read from disk may hold bytes that are not UTF-8, kept as lone surrogates U+DC80 + byte
 *   (lib/intake/names.ts): every function shows each as `\xFF`, so two such names stay apart
 *   where they are shown, instead of both becoming U+FFFD.
 * - A spreadsheet splits a CSV on `,`, `;` or TAB, whichever its locale or the import dialog
 *   says; a formula may start a cell after any of them (spreadsheetCell).
 * - Every function is a single linear pass: student text may be long.
 */

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_RUNS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;
const ZERO_WIDTH_SPACE = '\u200B';
const ESCAPED_BYTES = /[\uDC80-\uDCFF]/gu;

/** Each byte that is not UTF-8 in a name read from disk shown as `\xFF`. */
export function showBytes(text: string): string {
  return text.replace(ESCAPED_BYTES, (ch) => `\\x${(ch.charCodeAt(0) - 0xdc00).toString(16).toUpperCase()}`);
}

/** `::` and `##[` made inert for a GitHub workflow log, wherever the text is later split or trimmed. */
export function neutraliseWorkflowCommands(text: string): string {
  return text.replace(/::/g, `:${ZERO_WIDTH_SPACE}:`).replace(/##\[/g, `#${ZERO_WIDTH_SPACE}#[`);
}

/** Control characters become spaces, runs of space one space: for writers that escape further (Markdown). */
export function flatten(text: string): string {
  return showBytes(text).replace(CONTROL_RUNS, ' ').replace(/\s+/g, ' ').trim();
}

/** Student text as one printable line, safe for a terminal and a workflow log. */
export function oneLine(text: string): string {
  return neutraliseWorkflowCommands(flatten(text));
}

/** Student text as printable lines: line breaks kept (\r\n, \r, \n become \n), every other control character dropped. */
export function printableLines(text: string): string {
  return neutraliseWorkflowCommands(
    showBytes(text)
      .replace(/\r\n?/g, '\n')
      .replace(/\t/g, '  ')
      .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ''),
  );
}

/**
 * A name from a submission (a file or folder) inside a one-line message: quoted when it holds
 * anything unusual, with control characters shown as escapes, so that what is named can be found.
 */
export function showName(name: string): string {
  if (/^[\w.@+-][\w ./@+-]*$/.test(name)) return name;
  const escaped = showBytes(name.replace(/["\\]/g, (ch) => `\\${ch}`)).replace(CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return neutraliseWorkflowCommands(`"${escaped}"`);
}

/** Cut to `max` characters (code points, so an emoji is not split), marking the cut with '…'. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  // A code point is at most two code units: this many units hold more than `max` code points, or all of them.
  const head = text.slice(0, 2 * max + 2);
  const chars = Array.from(head);
  if (chars.length <= max && head.length === text.length) return text;
  return chars.slice(0, max - 1).join('') + '…';
}

/**
 * Student text as a spreadsheet cell's contents (the CSV writer quotes every text cell). Quoting
 * (RFC 4180) carries commas, quotes and line breaks faithfully, so those stay; other control
 * characters (ESC and its kin) go. A spreadsheet runs a cell that starts with =, +, -, @ (OWASP
 * "CSV injection"), and one that splits on `;` or TAB, or ignores the quotes, starts a cell after
 * each `,`, `;`, TAB or line break inside this one: an apostrophe before each such character (and
 * after any spaces or quotes that follow the separator) keeps every piece text, wherever the
 * spreadsheet cuts.
 */
export function spreadsheetCell(text: string): string {
  const kept = showBytes(text).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
  // Spaces and quotes between a separator and the formula do not stop a spreadsheet from running it.
  const guarded = kept.replace(/(^|[,;\t\r\n])([ \t\r\n"]*)(?=[=+\-@])/g, "$1$2'");
  // A leading TAB or CR is on OWASP's list too: some spreadsheets drop it and read what follows.
  return /^[\t\r]/.test(guarded) ? `'${guarded}` : guarded;
}
