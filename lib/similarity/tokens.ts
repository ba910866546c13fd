/**
 * A submission's code as tokens for the similarity check, from the TypeScript compiler's own
 * scanner: comments and whitespace dropped, every name a submission chooses (variables, functions,
 * parameters, types) one token `$`, every literal one token per kind. Renaming, reformatting and
 * re-commenting change nothing; the structure and the library's own names (after a `.`: matmul,
 * shape, data, length) stay, as they are what a renamed copy cannot change.
 */
import ts from 'typescript';

/** Where a token is in the text: 0-based line and column of its first and last character. */
export type Span = [startLine: number, startCol: number, endLine: number, endCol: number];

export interface Tokens {
  tokens: string[];
  spans: Span[];
}

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

export function tokenise(text: string): Tokens {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  // Tokens come in order: the line only moves forward.
  let line = 0;
  const at = (pos: number): [number, number] => {
    while (line + 1 < starts.length && starts[line + 1] <= pos) line++;
    while (line > 0 && starts[line] > pos) line--;
    return [line, pos - starts[line]];
  };
  const tokens: string[] = [];
  const spans: Span[] = [];
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
    let token: string;
    if (kind === ts.SyntaxKind.Identifier || kind === ts.SyntaxKind.PrivateIdentifier) {
      token = previous === ts.SyntaxKind.DotToken || previous === ts.SyntaxKind.QuestionDotToken ? scanner.getTokenText() : '$';
    } else token = LITERALS[kind] ?? scanner.getTokenText();
    const start = at(scanner.getTokenStart());
    const end = at(Math.max(scanner.getTokenStart(), scanner.getTokenEnd() - 1));
    tokens.push(token);
    spans.push([start[0], start[1], end[0], end[1]]);
    previous = kind;
  }
  return { tokens, spans };
}

/**
 * One text for a submission of several files, in a fixed order (the entry first, then by path),
 * each under a line naming it: the page shows it, and the tokens of every file count as one.
 */
export function joinFiles(files: ReadonlyMap<string, string>, entry: string): string {
  const names = [...files.keys()].filter((name) => /\.ts$/.test(name)).sort((a, b) => (a === entry ? -1 : b === entry ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return names.map((name) => `// ── ${name} ──\n${files.get(name)!.replace(/\r\n?/g, '\n')}`).join('\n\n');
}
