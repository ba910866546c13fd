/**
 * What the parse tree says about a node, for normalise.ts: which kinds state types or run nothing,
 * and whether a pair of parentheses is needed once types are gone (what statements and
 * expressions do is effects.ts's).
 */
import ts from 'typescript';
import type { Effects } from './effects';

export const K = ts.SyntaxKind;

export const DROPPED_MODIFIERS = new Set([K.ExportKeyword, K.DefaultKeyword, K.PublicKeyword, K.PrivateKeyword, K.ProtectedKeyword,
  K.ReadonlyKeyword, K.OverrideKeyword, K.AbstractKeyword]);
/** Declarations that run nothing. */
export const TYPE_ONLY = new Set([K.ImportDeclaration, K.ImportEqualsDeclaration, K.ExportDeclaration, K.InterfaceDeclaration, K.TypeAliasDeclaration, K.IndexSignature]);
/** Nodes whose modifiers are looked at (a `declare`d one is type-only too). */
export const MODIFIED = new Set([K.VariableStatement, K.FunctionDeclaration, K.ClassDeclaration, K.ClassExpression, K.EnumDeclaration, K.ModuleDeclaration,
  K.MethodDeclaration, K.PropertyDeclaration, K.Parameter, K.Constructor, K.GetAccessor, K.SetAccessor, K.ArrowFunction, K.FunctionExpression]);
/** Nodes that may state a type (`: T`) or type parameters (`<T>`). */
export const TYPED = new Set([K.Parameter, K.VariableDeclaration, K.PropertyDeclaration, K.FunctionDeclaration, K.FunctionExpression, K.ArrowFunction,
  K.MethodDeclaration, K.Constructor, K.GetAccessor, K.SetAccessor, K.ClassDeclaration, K.ClassExpression]);
export const LOOPS = new Set([K.ForStatement, K.ForInStatement, K.ForOfStatement, K.WhileStatement, K.DoStatement]);
/** Where a block is one statement among others rather than a body. */
export const STATEMENT_LISTS = new Set([K.Block, K.SourceFile, K.CaseClause, K.DefaultClause, K.ModuleBlock]);
/** What TYPED and MODIFIED nodes may have; each is read only from a node of a kind that has it. */
export interface Declaration extends ts.Node {
  modifiers?: ts.NodeArray<ts.ModifierLike>;
  type?: ts.TypeNode;
  typeParameters?: ts.NodeArray<ts.TypeParameterDeclaration>;
  questionToken?: ts.QuestionToken;
  exclamationToken?: ts.ExclamationToken;
  body?: ts.Node;
}

/** `a op= b` → `a = a op b`. */
export const COMPOUND: Partial<Record<ts.SyntaxKind, ts.BinaryOperator>> = {
  [ts.SyntaxKind.PlusEqualsToken]: ts.SyntaxKind.PlusToken,
  [ts.SyntaxKind.MinusEqualsToken]: ts.SyntaxKind.MinusToken,
  [ts.SyntaxKind.AsteriskEqualsToken]: ts.SyntaxKind.AsteriskToken,
  [ts.SyntaxKind.AsteriskAsteriskEqualsToken]: ts.SyntaxKind.AsteriskAsteriskToken,
  [ts.SyntaxKind.SlashEqualsToken]: ts.SyntaxKind.SlashToken,
  [ts.SyntaxKind.PercentEqualsToken]: ts.SyntaxKind.PercentToken,
  [ts.SyntaxKind.LessThanLessThanEqualsToken]: ts.SyntaxKind.LessThanLessThanToken,
  [ts.SyntaxKind.GreaterThanGreaterThanEqualsToken]: ts.SyntaxKind.GreaterThanGreaterThanToken,
  [ts.SyntaxKind.GreaterThanGreaterThanGreaterThanEqualsToken]: ts.SyntaxKind.GreaterThanGreaterThanGreaterThanToken,
  [ts.SyntaxKind.AmpersandEqualsToken]: ts.SyntaxKind.AmpersandToken,
  [ts.SyntaxKind.BarEqualsToken]: ts.SyntaxKind.BarToken,
  [ts.SyntaxKind.CaretEqualsToken]: ts.SyntaxKind.CaretToken,
  [ts.SyntaxKind.AmpersandAmpersandEqualsToken]: ts.SyntaxKind.AmpersandAmpersandToken,
  [ts.SyntaxKind.BarBarEqualsToken]: ts.SyntaxKind.BarBarToken,
  [ts.SyntaxKind.QuestionQuestionEqualsToken]: ts.SyntaxKind.QuestionQuestionToken,
};

export const EQUALITY: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.EqualsEqualsToken]: '===',
  [ts.SyntaxKind.ExclamationEqualsToken]: '!==',
};

/** What vanishes from an expression with its types: parentheses, `as`, `satisfies`, `<T>x`, `x!`. */
export const WRAPPERS = new Set([K.ParenthesizedExpression, K.AsExpression, K.SatisfiesExpression, K.TypeAssertionExpression, K.NonNullExpression]);

/** What an expression comes to once its wrappers and what does nothing in it (Effects.kept) are gone. */
export function effectiveOf(node: ts.Node, does: Effects): ts.Node {
  for (;;) {
    if (WRAPPERS.has(node.kind)) node = (node as ts.ParenthesizedExpression).expression;
    else {
      const kept = does.kept(node);
      if (!kept) return node;
      node = kept;
    }
  }
}

/** Statements that do something in a block, counting those of the bare blocks and kept branches inside it (whose syntax goes). */
export function statementsIn(block: ts.Block, does: Effects): number {
  let count = 0;
  const todo: ts.Node[] = [...block.statements];
  for (let statement = todo.pop(); statement; statement = todo.pop()) {
    if (does.inert(statement)) continue;
    const kept = does.kept(statement);
    if (kept) todo.push(kept);
    else if (statement.kind === K.Block) todo.push(...(statement as ts.Block).statements);
    else count++;
  }
  return count;
}

/**
 * Whether the parser needs parentheses at `slot` (a child of `parent`) once the types and what
 * does nothing are gone: `inner`, what is left inside (normalise.ts effective), put in their place
 * by TypeScript's own node factory, gets them back.
 */
export function required(slot: ts.Node, parent: ts.Node, inner: ts.Node): boolean {
  // An arrow's body becomes a return statement (normalise.ts), where no expression needs them.
  if (ts.isArrowFunction(parent) && parent.body === slot) return false;
  try {
    const rebuilt = ts.visitEachChild(parent, (child) => (child === slot ? inner : child), undefined);
    let back = false;
    ts.forEachChild(rebuilt, (child) => {
      if (ts.isParenthesizedExpression(child) && child.expression === inner) back = true;
    });
    return back;
  } catch {
    return true;
  }
}

