/**
 * How deep a source text nests, measured by one pass of TypeScript's scanner (a loop: nothing
 * recursive meets the text) before a recursive parser reads it. TypeScript's parser recurses once
 * per level of brackets, of prefix operators (`!!!!…1`, `- - - 1`, `typeof typeof …`) and of
 * right-nested operators (`a = b = …`, `a ? b : c ? …`, `x => y => …`, `a ** b ** …`, `A<B<…>>`);
 * with Node's default stack it overflows at 600 to 3,000 of them. A text that nests deeper than
 * MAX_NESTING is refused here, with the place where it does, before any parser sees it.
 *
 * The measure, at each token: every open bracket (`(`, `[`, `{`, `${`) counts 1, plus the prefix
 * operators written just before it; the prefix operators written just before the token count 1
 * each; and the right-nested operators of each open level (since its last `,`, `;` or line break)
 * count 1 each, a `>` taking one back. A line break ending the count undercounts a chain written
 * one link per line: whatever gets past this measure still meets a parser only where a crash is the
 * text's own failure (lib/similarity/readers.ts).
 */
import ts from 'typescript';

/** Far past any program a person writes (30 is deep), far short of where the parser overflows. */
export const MAX_NESTING = 256;

/** Where a text first nests deeper than the limit: line and column counted from 1. */
export interface TooDeep {
  line: number;
  column: number;
}

const K = ts.SyntaxKind;
const OPENERS = new Set([K.OpenParenToken, K.OpenBracketToken, K.OpenBraceToken]);
const CLOSERS = new Set([K.CloseParenToken, K.CloseBracketToken]);
const PREFIX = new Set([K.ExclamationToken, K.TildeToken, K.PlusToken, K.MinusToken, K.PlusPlusToken, K.MinusMinusToken, K.TypeOfKeyword,
  K.VoidKeyword, K.DeleteKeyword, K.AwaitKeyword, K.NewKeyword, K.YieldKeyword, K.DotDotDotToken]);
const RIGHT_NESTED = new Set([K.EqualsGreaterThanToken, K.QuestionToken, K.AsteriskAsteriskToken, K.LessThanToken,
  ...Array.from({ length: K.LastAssignment - K.FirstAssignment + 1 }, (_, i) => K.FirstAssignment + i)]);
const ENDS_CHAIN = new Set([K.CommaToken, K.SemicolonToken]);

/** Tokens after which a `/` divides: a value ends there (elsewhere it starts a regular expression). */
const VALUES = new Set([K.Identifier, K.PrivateIdentifier, K.CloseParenToken, K.CloseBracketToken, K.NumericLiteral,
  K.BigIntLiteral, K.StringLiteral, K.NoSubstitutionTemplateLiteral, K.TemplateTail, K.RegularExpressionLiteral, K.ThisKeyword,
  K.SuperKeyword, K.TrueKeyword, K.FalseKeyword, K.NullKeyword, K.PlusPlusToken, K.MinusMinusToken]);

/** The first place where `text` nests deeper than `limit`, or undefined. Linear in the text; stops there. */
export function tooDeep(text: string, limit = MAX_NESTING): TooDeep | undefined {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  /** Per open level: what it adds (1 and the prefix operators before it), the chain of the level around it, and whether a template's `${` opened it. */
  const weights: number[] = [];
  const chains: number[] = [];
  const templates: boolean[] = [];
  /** The open levels' weights and the chains around the current level, summed. */
  let outer = 0;
  let chain = 0;
  let run = 0;
  let previous = K.Unknown;
  const open = (template: boolean) => {
    const weight = 1 + run;
    weights.push(weight);
    chains.push(chain);
    templates.push(template);
    outer += weight + chain;
    chain = 0;
    run = 0;
  };
  const close = () => {
    if (weights.length === 0) return;
    chain = chains.pop()!;
    outer -= weights.pop()! + chain;
    templates.pop();
    run = 0;
  };
  for (let kind = scanner.scan(); kind !== K.EndOfFileToken; kind = scanner.scan()) {
    if (kind === K.CloseBraceToken && templates.at(-1)) kind = scanner.reScanTemplateToken(false);
    else if ((kind === K.SlashToken || kind === K.SlashEqualsToken) && !VALUES.has(previous)) kind = scanner.reScanSlashToken();
    previous = kind;
    if (scanner.hasPrecedingLineBreak()) chain = 0;
    if (OPENERS.has(kind) || kind === K.TemplateHead) open(kind === K.TemplateHead);
    else if (CLOSERS.has(kind) || kind === K.CloseBraceToken || kind === K.TemplateTail) close();
    else if (kind === K.TemplateMiddle) {
      // `}…${` ends one span of the template and starts the next, on the same level.
      chain = 0;
      run = 0;
    } else if (PREFIX.has(kind)) run++;
    else {
      run = 0;
      if (RIGHT_NESTED.has(kind)) chain++;
      else if (kind === K.GreaterThanToken) chain = Math.max(0, chain - 1);
      else if (ENDS_CHAIN.has(kind)) chain = 0;
    }
    if (outer + chain + run > limit) return place(text, scanner.getTokenStart());
  }
  return undefined;
}

/** Line and column (from 1) of a position, counting `\n`, `\r\n` and `\r` as line breaks. */
function place(text: string, position: number): TooDeep {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < position; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: position - lineStart + 1 };
}

/** The reason a text is refused, after its place (`student/index.ts:3:9`), as a syntax error reads. */
export function nestingReason(where: string, limit = MAX_NESTING): string {
  return `${where}: the code nests more than ${limit} levels deep here (brackets, prefix operators such as ! and -, and chained operators such as = ? => together): `
    + 'no solution needs that; write it as a few named steps';
}
