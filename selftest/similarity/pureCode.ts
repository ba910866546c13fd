/**
 * Code that does nothing, drawn at random from a seed (fast-check), and copies of a solution with it
 * inserted, as a student would hide a copy (issue 41): a pure expression as a statement after
 * statements, a pure left operand of a comma before reads of a name (`(typeof Math, x)`), and
 * branches a constant condition never takes, holding anything (`if (!1) { f(); }`). A program
 * with such code does what it did; the similarity check must see the copy it is
 * (lib/similarity/effects.ts).
 *
 * The junk never throws: it reads no property of what could be null and no name but globals (not
 * even through `typeof`: `typeof x` throws where a `const x` is declared later in its block), so a
 * copy still grades as its original does.
 */
import fc from 'fast-check';
import seedrandom from 'seedrandom';
import ts from 'typescript';

const GLOBALS = ['Math', 'Number', 'undefined', 'NaN', 'Infinity', 'Array'];

const literal = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((x) => String(x)),
  fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('true', 'false', 'null', 'void 0', '0x1f', '1e-3'),
);

const UNARY = ['!', '-', '+', '~', 'typeof ', 'void '];
// No `>`: `a < (b) > (c)` is a call with type arguments to TypeScript's parser.
const BINARY = ['+', '-', '*', '/', '%', '**', '<', '<=', '===', '!==', '==', '!=', '&&', '||', '??', '&', '|', '^', '<<', ','];

/** Expressions over literals only: their value is known before the program runs. */
const constant: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof({ depthSize: 'small' },
    literal,
    fc.tuple(fc.constantFrom(...UNARY), tie('e')).map(([op, e]) => `${op}(${e})`),
    fc.tuple(tie('e'), fc.constantFrom(...BINARY.filter((op) => op !== '??')), tie('e')).map(([a, op, b]) => `((${a}) ${op} (${b}))`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, a, b]) => `(${c} ? ${a} : ${b})`)),
})).e;

/** Pure expressions: literals, globals, `typeof` of any name, operators, `?:`, commas, array and object literals, property reads, functions made but not called. */
export const pureExpression: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof({ depthSize: 'small' },
    literal,
    fc.constantFrom(...GLOBALS),
    fc.constantFrom('typeof globalThis', 'typeof Symbol', 'Math.PI', 'Number.EPSILON', '(() => f())', '(function () { g(); })', '`t${1}`'),
    fc.tuple(fc.constantFrom(...UNARY), tie('e')).map(([op, e]) => `${op}(${e})`),
    // Each operand in parentheses: `-1 ** 2` and `a ?? b || c` are syntax errors.
    fc.tuple(tie('e'), fc.constantFrom(...BINARY), tie('e')).map(([a, op, b]) => `((${a}) ${op} (${b}))`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    fc.array(tie('e'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
    fc.array(tie('e'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}].length`),
    fc.array(fc.tuple(fc.constantFrom('a', 'b', 'data'), tie('e')), { maxLength: 3 }).map((ps) => `({ ${ps.map(([k, v]) => `${k}: ${v}`).join(', ')} })`)),
})).e;

/** Statements that run something, for branches that never run. */
const anything = fc.array(fc.constantFrom('f(1);', 'x = y;', 'throw new Error("no");', 'out.data[0] = 2;', 'i++;', 'return 1;', 'g(h());'), { minLength: 1, maxLength: 3 })
  .map((xs) => xs.join(' '));

/** A statement that never runs anything: under a constant condition that is false. */
export const deadCode: fc.Arbitrary<string> = fc.tuple(constant, anything, fc.constantFrom('if', 'while', 'for', 'ifElse'))
  .filter(([condition]) => {
    try {
      return !new Function(`"use strict"; return (${condition});`)();
    } catch {
      return false;
    }
  })
  .map(([condition, body, shape]) => (shape === 'if' ? `if (${condition}) { ${body} }` : shape === 'while' ? `while (${condition}) { ${body} }`
    : shape === 'for' ? `for (; ${condition};) { ${body} }` : `if (${condition}) { ${body} } else {}`));

/** Identifiers a program reads (not writes, declares or names a property with): each may be written `(junk, name)`. */
function reads(source: ts.SourceFile): ts.Identifier[] {
  const found: ts.Identifier[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && isRead(node)) found.push(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isRead(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isBinaryExpression(parent)) {
    const assigns = parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
    return !(assigns && parent.left === node);
  }
  if (ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) return parent.expression === node || (ts.isElementAccessExpression(parent) && parent.argumentExpression === node);
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) return parent.expression === node || (parent.arguments ?? []).some((a) => a === node);
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.initializer === node;
  if (ts.isPrefixUnaryExpression(parent)) return parent.operator !== ts.SyntaxKind.PlusPlusToken && parent.operator !== ts.SyntaxKind.MinusMinusToken;
  return ts.isReturnStatement(parent) || ts.isArrayLiteralExpression(parent) || ts.isConditionalExpression(parent) || ts.isTemplateSpan(parent)
    || ts.isSpreadElement(parent) || (ts.isIfStatement(parent) && parent.expression === node) || (ts.isForOfStatement(parent) && parent.expression === node);
}

/** Ends of statements among others (in a file, a block or a case), after which a statement may go. */
function statementEnds(source: ts.SourceFile): number[] {
  const ends: number[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isSourceFile(node) || ts.isBlock(node) || ts.isCaseClause(node) || ts.isDefaultClause(node)) {
      for (const s of node.statements) if (!ts.isInterfaceDeclaration(s) && !ts.isTypeAliasDeclaration(s)) ends.push(s.end);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return ends;
}

/** `code` with `statement(i)` after the statements ending at `ends`, and each of `names` written `(prefix(i), name)`. */
function insert(code: string, source: ts.SourceFile, ends: readonly number[], names: readonly ts.Identifier[], statement: (i: number) => string, prefix: (i: number) => string): string {
  const edits = [
    ...ends.map((at, i) => ({ at, after: ` ${statement(i)}` })),
    ...names.map((name, i) => ({ at: name.getStart(source), before: `(${prefix(i)}, `, end: name.end })),
  ];
  // From the end backwards, so that each place is still where it was; at one place, the name first, then the statement before it.
  let out = code;
  for (const edit of edits.sort((a, b) => b.at - a.at || ('after' in a ? 1 : -1))) {
    if ('after' in edit) out = out.slice(0, edit.at) + edit.after + out.slice(edit.at);
    else out = `${out.slice(0, edit.at)}${edit.before}${out.slice(edit.at, edit.end)})${out.slice(edit.end)}`;
  }
  return out;
}

/**
 * `code` with junk drawn from `seed` inserted: after about half its statements a pure statement
 * or dead code, and about half its reads of a name written `(junk, name)`. Always valid TypeScript.
 */
export function withJunk(code: string, seed: number): string {
  const source = ts.createSourceFile('x.ts', code, ts.ScriptTarget.Latest, true);
  const rng = seedrandom(String(seed));
  const ends = statementEnds(source).filter(() => rng() < 0.5);
  const names = reads(source).filter(() => rng() < 0.5);
  const expressions = fc.sample(pureExpression, { seed, numRuns: ends.length + names.length + 1 });
  const dead = fc.sample(deadCode, { seed: seed + 1, numRuns: ends.length + 1 });
  return insert(code, source, ends, names, (i) => (i % 3 === 2 ? dead[i] : `;(${expressions[i]});`), (i) => expressions[ends.length + i]);
}

/** The copies of issue 41: every read of a name written `(0, name)`; `typeof Math;` or `[];` after every statement. */
export function theIssuesCopies(code: string): { commas: string; statements: string } {
  const source = ts.createSourceFile('x.ts', code, ts.ScriptTarget.Latest, true);
  return {
    commas: insert(code, source, [], reads(source), () => '', () => '0'),
    statements: insert(code, source, statementEnds(source), [], (i) => (i % 2 ? ';[];' : ';typeof Math;'), () => ''),
  };
}
