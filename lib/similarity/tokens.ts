/**
 * A submission's code as tokens for the similarity check, from the TypeScript compiler's own
 * scanner: comments and whitespace dropped, every name a submission chooses (variables, functions,
 * parameters) one token `$`, every literal one token per kind, and what normalise.ts sets aside
 * (types, needless parentheses and braces, the spellings of one meaning) set aside; `;` and
 * trailing commas are dropped here. Renaming, reformatting, re-commenting and those rewrites
 * change nothing; the structure and the library's own names (after a `.`: matmul, shape, data,
 * length) stay, as they are what a renamed copy cannot change.
 */
import ts from 'typescript';
import { NESTING_LIMIT, tooDeep, type TooDeep } from '../text/nesting';
import { AFTER, BEFORE, DROP, NAME, REPLACE, type Insert } from './edits';
import { normalisingEdits } from './normalise';

/** Where a token is in the text: 0-based line and column of its first and last character. */
export type Span = [startLine: number, startCol: number, endLine: number, endCol: number];

export interface Tokens {
  tokens: string[];
  /** Four numbers per token, its Span. */
  spans: Int32Array<ArrayBuffer>;
}

export const spanOf = (spans: Int32Array, i: number): Span => [spans[4 * i], spans[4 * i + 1], spans[4 * i + 2], spans[4 * i + 3]];

const LITERALS: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.NumericLiteral]: 'num',
  [ts.SyntaxKind.BigIntLiteral]: 'num',
  [ts.SyntaxKind.StringLiteral]: 'str',
  [ts.SyntaxKind.NoSubstitutionTemplateLiteral]: 'str',
  [ts.SyntaxKind.TemplateHead]: 'str${',
  [ts.SyntaxKind.TemplateMiddle]: '}str${',
  [ts.SyntaxKind.TemplateTail]: '}str',
  [ts.SyntaxKind.RegularExpressionLiteral]: 'regex',
};

/** Tokens after which a `/` divides: a value ends there. */
const VALUES = new Set([
  ts.SyntaxKind.Identifier, ts.SyntaxKind.PrivateIdentifier, ts.SyntaxKind.CloseParenToken, ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.NumericLiteral, ts.SyntaxKind.BigIntLiteral, ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateTail, ts.SyntaxKind.RegularExpressionLiteral, ts.SyntaxKind.ThisKeyword, ts.SyntaxKind.SuperKeyword,
  ts.SyntaxKind.TrueKeyword, ts.SyntaxKind.FalseKeyword, ts.SyntaxKind.NullKeyword, ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken,
]);

const CLOSING = new Set([')', ']', '}']);

/** A text that nests deeper than the parser may be handed (lib/text/nesting.ts): where it first does. */
export class TooDeepError extends Error {
  override name = 'TooDeepError';

  constructor(readonly place: TooDeep) {
    super(`nests more than ${NESTING_LIMIT} levels deep at line ${place.line}, column ${place.column}`);
  }
}

/** The tokens of `text`; throws TooDeepError before parsing a text that nests too deep. */
export function tokenise(text: string): Tokens {
  const deep = tooDeep(text);
  if (deep) throw new TooDeepError(deep);
  const edits = normalisingEdits(text);
  const marks = edits.marks;
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  /** The current token's span; added tokens take the span of the token they come with. */
  const current = new Int32Array(4);
  // Line and column, counted as the scan moves forward.
  let line = 0;
  let lineStart = 0;
  let lineEnd = text.indexOf('\n');
  const place = (pos: number, into: number) => {
    while (lineEnd >= 0 && lineEnd < pos) {
      line++;
      lineStart = lineEnd + 1;
      lineEnd = text.indexOf('\n', lineStart);
    }
    current[into] = line;
    current[into + 1] = pos - lineStart;
  };
  const tokens: string[] = [];
  let spans = new Int32Array(4 * 1024);
  /** Where each kept token starts in the text (an added one: where the token it came with starts). */
  let starts = new Int32Array(1024);
  /** Whether each token was added by an edit: a copy takes only the text's own tokens. */
  let added = new Uint8Array(1024);
  // Copies could compound (`a[a[i] += 1] += 1`): they add no more tokens in all than the text has characters.
  let copyBudget = text.length;
  let start = 0;
  const push = (token: string, isAdded: boolean) => {
    const n = tokens.length;
    if (n === starts.length) {
      starts = grow(starts, 2 * n);
      spans = grow(spans, 8 * n);
      const more = new Uint8Array(2 * n);
      more.set(added);
      added = more;
    }
    tokens.push(token);
    added[n] = isAdded ? 1 : 0;
    spans.set(current, 4 * n);
    starts[n] = start;
  };
  /** The index of the first kept token that starts at or after `pos`. */
  const firstFrom = (pos: number) => {
    let [lo, hi] = [0, tokens.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const insert = (items: readonly Insert[]) => {
    // Copies are read before anything is added: an added token takes the position of the token it comes with.
    const adding: string[] = [];
    for (const item of items) {
      if (typeof item === 'string') adding.push(item);
      else {
        for (let i = firstFrom(item.copy[0]), end = firstFrom(item.copy[1]); i < end && copyBudget > 0; i++) {
          if (!added[i]) {
            adding.push(tokens[i]);
            copyBudget--;
          }
        }
      }
    }
    for (const token of adding) push(token, true);
  };
  const ranges = edits.dropRanges;
  let range = 0;
  // Braces opened inside a template's ${ … }: the `}` that closes one resumes the template.
  const braces: ('code' | 'template')[] = [];
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.CloseBraceToken && braces.pop() === 'template') kind = scanner.reScanTemplateToken(false);
    else if (kind === ts.SyntaxKind.OpenBraceToken) braces.push('code');
    else if (kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) {
      // A regular expression where an expression may start (not after a value): read it whole.
      if (!VALUES.has(previous)) kind = scanner.reScanSlashToken();
    }
    if (kind === ts.SyntaxKind.TemplateHead || kind === ts.SyntaxKind.TemplateMiddle) braces.push('template');
    start = scanner.getTokenStart();
    const end = scanner.getTokenEnd();
    const mark = marks[start];
    if (mark & NAME) kind = ts.SyntaxKind.Identifier;
    let token: string;
    if (kind === ts.SyntaxKind.Identifier || kind === ts.SyntaxKind.PrivateIdentifier) {
      token = previous === ts.SyntaxKind.DotToken || previous === ts.SyntaxKind.QuestionDotToken ? scanner.getTokenText() : '$';
    } else token = LITERALS[kind] ?? scanner.getTokenText();
    previous = kind;
    place(start, 0);
    place(Math.max(start, end - 1), 2);
    if (mark & BEFORE) insert(edits.before.get(start)!);
    while (range < ranges.length && ranges[range][1] <= start) range++;
    const dropped = kind === ts.SyntaxKind.SemicolonToken || (range < ranges.length && ranges[range][0] <= start) || mark & DROP;
    if (!dropped) {
      if (mark & REPLACE) insert(edits.replace.get(start)!);
      else {
        // A trailing comma: `f(a, b,)` is `f(a, b)`.
        if (CLOSING.has(token) && tokens.at(-1) === ',') tokens.pop();
        push(token, false);
      }
    }
    if (marks[end] & AFTER) insert(edits.after.get(end)!);
  }
  return { tokens, spans: spans.slice(0, 4 * tokens.length) };
}

function grow(array: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(length);
  bigger.set(array);
  return bigger;
}

/** A submission's TypeScript files in the order they are shown and read: the entry first, then by path. */
export function joinOrder(files: ReadonlyMap<string, string>, entry: string): string[] {
  return [...files.keys()].filter((name) => /\.ts$/.test(name)).sort((a, b) => (a === entry ? -1 : b === entry ? 1 : a < b ? -1 : a > b ? 1 : 0));
}

/**
 * One text for a submission of several files, in a fixed order (joinOrder), each under a line
 * naming it: the page shows it, and the tokens of every file count as one (read.ts places them in it).
 */
export function joinFiles(files: ReadonlyMap<string, string>, entry: string): string {
  return joinOrder(files, entry).map((name) => `// ── ${name} ──\n${files.get(name)!.replace(/\r\n?/g, '\n')}`).join('\n\n');
}
