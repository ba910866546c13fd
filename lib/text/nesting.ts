/**
 * How deep a source nests, found by one linear pass before any recursive parser sees it. oxc (the
 * load check's parser) and TypeScript (transpiling, the type check) recurse once per level of
 * nesting without a limit: `((((…1…))))` or `!!!…1` a few thousand deep overflows oxc's native
 * stack and ends the whole process with SIGSEGV, and a few hundred `${` ends TypeScript's with a
 * RangeError. A file past the bound is refused like a syntax error, in both paths (the load check,
 * sandbox/imports.ts), is not type-checked (typecheck/run.ts) and is not compared for similarity
 * (similarity/tokens.ts): one bound, one measure, the same words wherever a text is refused.
 *
 * The count is an upper bound on how deep a parser recurses, in one unit: each open bracket (`(`,
 * `[`, `{`, `${`, and `<` while it may open type arguments), plus, inside each, the operators and
 * chaining words met since the parsers were last back at a statement or a list item there (`;`,
 * `,`, `case`, a token that starts a statement after a complete operand). Prefix runs (`!!!`,
 * `- - -`, `typeof typeof`, `new new`, `await await`), right-recursive chains (`a=b=…`,
 * `x?y:x?y:…`, `a=>b=>…`, `if(a)if(a)…`, `else if` chains, conditional types) and left chains
 * (`a.b.c…`, `f()()…`, `1+1+…`) are all runs of operators. Where a scanner cannot tell without
 * parsing (a `/` after `)`, `]` or `}`; a `<` that may be a comparison), it counts.
 */
import { codePlace, lineAndColumn } from './place';
import { Levels } from './nestingLevels';

/**
 * Far above honest code (none of the project's own files passes 50; of its packages' 2 500 files,
 * only generated tables and minified bundles pass 100) and well below what the parsers survive
 * (docs/benchmarks.md).
 */
export const NESTING_LIMIT = 200;

/** Words a parser recurses on when they follow one another (`typeof typeof`, `if (a) if (a)`, `else if`): counted. */
const CHAIN_WORDS = new Set([
  'typeof', 'void', 'delete', 'new', 'await', 'yield', 'in', 'of', 'instanceof', 'keyof', 'readonly', 'unique', 'infer',
  'extends', 'as', 'satisfies', 'is', 'asserts', 'if', 'else', 'while', 'for', 'do', 'with', 'async',
]);
/** Words after which more of the same statement follows, never a new one: no statement ends after them. */
const OPERATOR_WORDS = new Set([
  ...CHAIN_WORDS, 'implements', 'return', 'throw', 'function', 'class', 'interface', 'enum', 'type', 'namespace', 'module',
  'declare', 'abstract', 'let', 'const', 'var', 'import', 'export', 'get', 'set', 'static', 'public', 'private', 'protected',
  'override', 'accessor', 'using', 'switch', 'try', 'catch', 'finally', 'default', 'case',
]);
const STATEMENT_STARTERS = new Set(['!', '++', '--', '~', '@']);
/** Words that go on with what came before them: after a complete operand they start no statement. */
const CONTINUING_WORDS = new Set(['in', 'of', 'instanceof', 'as', 'satisfies', 'is', 'asserts', 'extends', 'implements', 'else', 'catch', 'finally']);
/** After these a `/` starts a regular expression (they are reserved in modules, never a variable). */
const REGEX_WORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);
const HEAD_WORDS = new Set(['if', 'for', 'while', 'with']);
/** Longest first: the scanner takes the longest punctuator that matches. */
const PUNCTUATORS = [
  '>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '&&=', '||=', '??=',
  '=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>',
];

const isLineEnd = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
const isSpace = (c: number) =>
  c === 32 || c === 9 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f || c === 0x3000;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isWordChar = (c: number) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || isDigit(c) || c === 36 || c === 95 || c === 92 || (c >= 0x80 && !isSpace(c) && !isLineEnd(c));

/** Where the line holding `i` ends. */
function lineEnd(source: string, i: number): number {
  while (i < source.length && !isLineEnd(source.charCodeAt(i))) i++;
  return i;
}

/** The end of a string literal opened at `i` (an unterminated one ends with its line). */
function stringEnd(source: string, i: number): number {
  const quote = source.charCodeAt(i);
  for (i++; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 92) i++;
    else if (c === quote) return i + 1;
    else if (isLineEnd(c)) return i;
  }
  return i;
}

/** The end of a regular expression opened at `i`, flags included (an unterminated one ends with its line). */
function regexEnd(source: string, i: number): number {
  let inClass = false;
  for (i++; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (isLineEnd(c)) break;
    if (c === 92) i++;
    else if (c === 91) inClass = true;
    else if (c === 93) inClass = false;
    else if (c === 47 && !inClass) {
      i++;
      break;
    }
  }
  while (i < source.length && isWordChar(source.charCodeAt(i))) i++;
  return i;
}

/** The end of a number starting at `i` (`1_000`, `0x1F`, `1.5e-3`, `5n`). */
function numberEnd(source: string, i: number): number {
  const hex = source.charCodeAt(i) === 48 && (source.charCodeAt(i + 1) | 32) === 120;
  for (i++; i < source.length; i++) {
    const c = source.charCodeAt(i);
    const sign = (c === 43 || c === 45) && !hex && (source.charCodeAt(i - 1) | 32) === 101;
    if (!isWordChar(c) && c !== 46 && !sign) break;
  }
  return i;
}

/** From inside a template's text at `i`: where it ends (after the backtick) or where a `${` opens (after it). */
function templateEnd(source: string, i: number): { end: number; placeholder: boolean } {
  for (; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 96) return { end: i + 1, placeholder: false };
    else if (c === 36 && source.charCodeAt(i + 1) === 123) return { end: i + 2, placeholder: true };
  }
  return { end: i, placeholder: false };
}

/** The UTF-16 offset of the first token where `source` nests past `limit`, or undefined: one pass, no recursion. */
export function nestingPastBound(source: string, limit = NESTING_LIMIT): number | undefined {
  const levels = new Levels();
  /** What the last token leaves: an operand to come, a complete one (`value`), or a property name (`dot`). */
  let after: 'operand' | 'value' | 'dot' = 'operand';
  let regexAllowed = true;
  let newline = false;
  let pendingHead = false;
  let semicolon = false;
  let i = source.startsWith('#!') ? lineEnd(source, 0) : 0;
  const n = source.length;
  const ended = (value: boolean) => {
    after = value ? 'value' : 'operand';
    regexAllowed = !value;
  };
  /** Inside a template's text: on to its end, or into a `${`, which is a level. */
  const template = () => {
    const { end, placeholder } = templateEnd(source, i);
    i = end;
    ended(!placeholder);
    if (placeholder) levels.push('${');
  };
  while (i < n) {
    const c = source.charCodeAt(i);
    if (isLineEnd(c) || isSpace(c)) {
      newline ||= isLineEnd(c);
      i++;
      continue;
    }
    if (c === 47 && source.charCodeAt(i + 1) === 47) {
      i = lineEnd(source, i);
      continue;
    }
    if (c === 47 && source.charCodeAt(i + 1) === 42) {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (; i < stop; i++) newline ||= isLineEnd(source.charCodeAt(i));
      continue;
    }
    const at = i;
    const brokeLine = newline;
    const head: boolean = pendingHead;
    const afterSemicolon = semicolon;
    newline = pendingHead = semicolon = false;
    // After a complete operand, a token no operator can be starts a statement (on the next line,
    // or after a `}`): the parsers have come back from everything this level ran up.
    const startsStatement = after === 'value';
    if (isDigit(c) || (c === 46 && isDigit(source.charCodeAt(i + 1)))) {
      if (startsStatement) levels.endStatement();
      i = numberEnd(source, i);
      ended(true);
    } else if (isWordChar(c) || c === 35) {
      i++;
      while (i < n && isWordChar(source.charCodeAt(i))) i++;
      const word = source.slice(at, i);
      const operator = after !== 'dot' && c !== 35 && OPERATOR_WORDS.has(word);
      const doneWith = word === 'while' && levels.top().dos > 0;
      if (!operator) {
        if (startsStatement) levels.endStatement();
        ended(true);
      } else if (word === 'case' || word === 'default') {
        // A switch's clauses are a flat list.
        levels.endStatement();
        ended(false);
      } else {
        if (word === 'else' || doneWith) {
          if (afterSemicolon) levels.resume();
        } else if (startsStatement && !CONTINUING_WORDS.has(word)) levels.endStatement();
        if (word === 'do') levels.top().dos++;
        if (doneWith) levels.top().dos--;
        if (CHAIN_WORDS.has(word)) levels.count();
        after = 'operand';
        regexAllowed = REGEX_WORDS.has(word);
        pendingHead = HEAD_WORDS.has(word) || (head && word === 'await');
      }
    } else if (c === 39 || c === 34) {
      if (startsStatement) levels.endStatement();
      i = stringEnd(source, i);
      ended(true);
    } else if (c === 96) {
      // After an operand a template is a tagged call: one more link of a chain.
      if (after === 'value') levels.count();
      i++;
      template();
    } else if (c === 47 && regexAllowed) {
      i = regexEnd(source, i);
      ended(true);
    } else if (c === 40 || c === 91 || c === 123) {
      i++;
      // A call or an index after an operand is one more link of a chain.
      if (c !== 123 && after === 'value') levels.count();
      levels.push(source[at], c === 40 && head);
      ended(false);
    } else if (c === 41 || c === 93 || c === 125) {
      i++;
      const closed = levels.close(c === 41 ? ['('] : c === 93 ? ['['] : ['{', '${']);
      if (closed?.open === '${') template();
      // A `/` after `)`, `]` or `}` may be a division or a regular expression: read as a division, it is counted.
      else ended(!closed?.head);
    } else if (c === 59 || c === 44) {
      i++;
      if (c === 44 && levels.top().open === '<') levels.endItem();
      else levels.endStatement(c === 59);
      semicolon = c === 59;
      ended(false);
    } else {
      const punctuator = PUNCTUATORS.find((p) => source.startsWith(p, i)) ?? source[i];
      i += punctuator === '?.' && isDigit(source.charCodeAt(i + 2)) ? 1 : punctuator.length;
      // `a!` and `a++` on one line end an operand; on the next line they start a statement.
      const postfix: boolean = after === 'value' && !brokeLine && (punctuator === '!' || punctuator === '++' || punctuator === '--');
      if (after === 'value' && brokeLine && STATEMENT_STARTERS.has(punctuator)) levels.endStatement();
      if (punctuator === '<') {
        levels.push('<');
        ended(false);
      } else if (/^>+$/.test(punctuator) && levels.closeTypeArguments(punctuator.length)) {
        ended(true);
      } else {
        levels.count();
        after = postfix ? 'value' : punctuator === '.' || punctuator === '?.' ? 'dot' : 'operand';
        regexAllowed = after === 'operand';
      }
    }
    if (levels.total > limit) return at;
  }
  return undefined;
}

/** Where a text first nests past `limit`: line and column from 1, as a syntax error names them. */
export interface TooDeep {
  line: number;
  column: number;
}

/** The place of the first token where `source` nests past `limit`, or undefined. */
export function tooDeep(source: string, limit = NESTING_LIMIT): TooDeep | undefined {
  const offset = nestingPastBound(source, limit);
  return offset === undefined ? undefined : lineAndColumn(source, offset);
}

/** Why a text is refused, after its place (`student/index.ts:3:14`), in every path's words. */
export function nestingReason(where: string): string {
  return `nesting too deep at ${where}: more than ${NESTING_LIMIT} brackets and operators inside one another; simplify the code there (give inner parts names of their own)`;
}

/** The load error of a file nested past the bound, in both paths' words; undefined when it is not. */
export function nestingProblem(source: string, label: string, file: string): string | undefined {
  const place = tooDeep(source);
  return place && nestingReason(codePlace(label, file, place.line, place.column));
}
