/**
 * What the similarity check sets aside before it compares token streams: syntax that does not
 * change what a program does, and that a student can add or remove to hide a copy. Read from the
 * parse tree, given to the scanner (tokens.ts) as edits at token positions, so that every token it
 * keeps still points at its place in the text the page shows.
 *
 * Each rewrite maps the forms of one meaning onto one form:
 * - types: annotations, `as`/`satisfies`/`<T>x`/`x!`, type parameters and arguments, interfaces,
 *   type aliases, overload signatures, `?` on parameters, `implements` (none of it runs);
 * - imports and exports (the contract decides them), and the modifiers `export`, `public`, `private`,
 *   `protected`, `readonly`, `override`, `abstract`, `declare`;
 * - parentheses the parser does not need (`((a)) * (b)` is `a * b`; `(a + b) * c` keeps its pair);
 * - braces around the one statement of an `if`, `else` or loop, and around statements among others;
 * - code that does nothing, by its effect (effects.ts), whatever its spelling: statements that do
 *   nothing (`'use strict';`, `0;`, `typeof Math;`, `[];`, `if (x) {}`, `while (0) …`), the pure
 *   left operand of a comma (`(0, f)` is `f`), the branch a constant condition never takes
 *   (`if (0) … else b` is `b`, `1 ? a : b` is `a`, `1 && a` is `a`, `do … while (0)` is its body),
 *   and labels (`a: for …` is `for …`, `break a` is `break`);
 * - `let`, `const` and `var` are one keyword; `let a = 1, b = 2` is `let a = 1; let b = 2`;
 * - functions: `const f = (x) => e`, `const f = function (x) { … }` and `function f(x) { return e }`
 *   are one form, and an arrow `x => e` elsewhere is `function (x) { return e }`;
 * - `a += b` is `a = a + b` (with parentheses where `b` needs them), `a++` and `++a` are `a = a + 1`;
 * - `==` is `===`, `!=` is `!==`; `{ x }` is `{ x: x }`; `a['b']` is `a.b`; `a?.b` is `a.b`;
 *   `new A` is `new A()`.
 * `;` and trailing commas are dropped by the scanner pass itself (tokens.ts).
 */
import ts from 'typescript';
import { EditList, type Edits, type Insert } from './edits';
import { effects } from './effects';
import {
  COMPOUND, type Declaration, DROPPED_MODIFIERS, effectiveOf, EQUALITY, K, LOOPS, MODIFIED, required, STATEMENT_LISTS, statementsIn, TYPE_ONLY, TYPED, WRAPPERS,
} from './syntax';

export type { Edits, Insert } from './edits';

/** Statements whose one statement child is a statement of the same list once their own syntax is gone. */
const STATEMENT_SLOTS = new Set([K.IfStatement, K.LabeledStatement, K.WithStatement, ...LOOPS]);

/**
 * The edits for `text`. The parser recurses once per level of nesting: a caller bounds that first
 * (lib/text/nesting.ts); this walk and effects.ts keep stacks of their own, so a tree as deep as a
 * long chain (`a + a + … + a`) costs them nothing more.
 */
export function normalisingEdits(text: string): Edits {
  // No parent pointers (the walk passes each node's parent) and no JSDoc: a third of the parse's time.
  const source = ts.createSourceFile('submission.ts', text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone }, false, ts.ScriptKind.TS);
  const does = effects();
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  /** The first token of `kind` at or after `from` (before `to`), or -1. */
  const tokenAt = (kind: ts.SyntaxKind, from: number, to = text.length): number => {
    scanner.resetTokenState(from);
    for (let k = scanner.scan(); k !== ts.SyntaxKind.EndOfFileToken && scanner.getTokenStart() < to; k = scanner.scan()) {
      if (k === kind) return scanner.getTokenStart();
    }
    return -1;
  };
  const edits = new EditList(text.length);
  const dropNode = (node: ts.Node) => edits.dropRange(node.getStart(source), node.end);
  // `: T` (the colon ends where the type's own trivia starts).
  const dropType = (type: ts.TypeNode) => edits.dropRange(type.pos - 1, type.end);
  // `<…>`: the list's own positions leave out both brackets.
  const dropList = (list: ts.NodeArray<ts.Node> | undefined) => {
    if (list) edits.dropRange(list.pos - 1, tokenAt(ts.SyntaxKind.GreaterThanToken, list.end) + 1);
  };
  // Function-valued `const f = …`: the expression's own visit must not add `function` again.
  const named = new Set<ts.Node>();

  const effective = (node: ts.Node) => effectiveOf(node, does);

  // The walk, on a stack of its own: a node to visit (with its parent, slot and parenAbove, below),
  // or what to do once a node's children are visited.
  type Task = { node: ts.Node; parent: ts.Node; slot: ts.Node; parenAbove: boolean } | (() => void);
  const todo: Task[] = [];
  const found: ts.Node[] = [];
  /** Visits `node`'s children (each its own slot under `node`, or under `parent` at `slot` for a wrapper), then runs `then`. */
  const children = (node: ts.Node, then?: () => void, through?: { parent: ts.Node; slot: ts.Node; parenAbove: boolean }) => {
    if (then) todo.push(then);
    found.length = 0;
    ts.forEachChild(node, (child) => {
      found.push(child);
    });
    for (let i = found.length - 1; i >= 0; i--) todo.push(through ? { node: found[i], ...through } : { node: found[i], parent: node, slot: found[i], parenAbove: false });
  };

  // One switch on the kind, and each node's fields read only for the kinds that have them: a walk
  // that reads every field of every node is left unoptimised by V8 (nodes of many shapes).
  // `parent` is the nearest ancestor that stays once types are gone, `slot` its child that holds
  // `node` through wrappers only (node itself, or `(…)`, `… as T` around it); `parenAbove` whether
  // one of those wrappers is a pair of parentheses.
  const visit = (node: ts.Node, parent: ts.Node, slot: ts.Node, parenAbove: boolean): void => {
    const kind = node.kind;
    if (kind === K.Identifier) {
      edits.name(node.getStart(source));
      return;
    }
    // Every type a program states is dropped with its annotation: nothing inside needs an edit.
    if (kind >= K.FirstTypeNode && kind <= K.LastTypeNode) return;
    if (TYPE_ONLY.has(kind) || (kind === K.HeritageClause && (node as ts.HeritageClause).token === K.ImplementsKeyword)) {
      dropNode(node);
      return;
    }
    // A statement that does nothing, where a statement goes (a function's empty body stays).
    if ((STATEMENT_LISTS.has(parent.kind) || STATEMENT_SLOTS.has(parent.kind)) && does.inert(node)) {
      dropNode(node);
      return;
    }
    // What an expression or statement comes to once the parts that do nothing are gone: only it stays.
    const kept = does.kept(node);
    if (kept) {
      edits.dropRange(node.getStart(source), kept.getStart(source));
      edits.dropRange(kept.end, node.end);
      if (kind === K.BinaryExpression || kind === K.ConditionalExpression) todo.push({ node: kept, parent, slot, parenAbove });
      else {
        // A statement kept from an `if`, a `do` or a label is one of its parent's: a block there is bare, or a body.
        if (kept.kind === K.Block && !STATEMENT_LISTS.has(parent.kind)) unbrace(kept as ts.Block);
        todo.push({ node: kept, parent, slot: kept, parenAbove: false });
      }
      return;
    }
    if (MODIFIED.has(kind) || TYPED.has(kind)) {
      const d = node as Declaration;
      // An overload's or a declared thing's signature.
      if (d.modifiers?.some((m) => m.kind === K.DeclareKeyword) || ((kind === K.FunctionDeclaration || kind === K.MethodDeclaration) && !d.body)) {
        dropNode(node);
        return;
      }
      for (const m of d.modifiers ?? []) if (DROPPED_MODIFIERS.has(m.kind)) edits.drop(m.getStart(source));
      if (d.type) dropType(d.type);
      if (d.questionToken) edits.drop(d.questionToken.getStart(source));
      if (d.exclamationToken) edits.drop(d.exclamationToken.getStart(source));
      dropList(d.typeParameters);
    }
    switch (kind) {
      case K.ParenthesizedExpression:
        // Of parentheses in one chain of wrappers, only the outermost can be needed.
        if (parenAbove || !required(slot, parent, effective(slot))) {
          edits.drop(node.getStart(source));
          edits.drop(node.end - 1);
        }
        break;
      case K.VariableDeclarationList:
        variables(node as ts.VariableDeclarationList, parent);
        break;
      case K.IfStatement:
        unbrace((node as ts.IfStatement).thenStatement);
        unbrace((node as ts.IfStatement).elseStatement);
        break;
      case K.Block:
        // A block among statements, not a body: `{ a(); b(); }` is `a(); b();`.
        if (STATEMENT_LISTS.has(parent.kind)) {
          edits.drop(node.getStart(source));
          edits.drop(node.end - 1);
        }
        break;
      case K.BreakStatement:
      case K.ContinueStatement: {
        // Labels go (above): `break a` is `break`.
        const label = (node as ts.BreakStatement).label;
        if (label) edits.drop(label.getStart(source));
        return;
      }
      case K.PropertyAccessExpression:
      case K.ElementAccessExpression:
      case K.CallExpression: {
        // `a?.b` is `a.b`, `a?.[i]` is `a[i]`, `f?.()` is `f()`: they differ only on null.
        const question = (node as ts.PropertyAccessExpression).questionDotToken;
        if (question) {
          if (kind === K.PropertyAccessExpression) edits.replace(question.getStart(source), ['.']);
          else edits.drop(question.getStart(source));
        }
        if (kind === K.ElementAccessExpression) dotted(node as ts.ElementAccessExpression);
        else if (kind === K.CallExpression) dropList((node as ts.CallExpression).typeArguments);
        break;
      }
      case K.NewExpression:
        dropList((node as ts.NewExpression).typeArguments);
        // `new A` is `new A()`.
        if (!(node as ts.NewExpression).arguments) edits.after(node.end, ['(', ')']);
        break;
      case K.ArrowFunction: {
        const body = (node as ts.ArrowFunction).body;
        arrow(node as ts.ArrowFunction);
        children(node, body.kind === K.Block ? undefined : () => edits.after(body.end, ['}']));
        return;
      }
      case K.FunctionExpression:
        if (named.has(node)) edits.drop(tokenAt(K.FunctionKeyword, node.getStart(source)));
        break;
      case K.BinaryExpression:
        if (binary(node as ts.BinaryExpression)) return;
        break;
      case K.PrefixUnaryExpression:
      case K.PostfixUnaryExpression:
        if (step(node as ts.PrefixUnaryExpression | ts.PostfixUnaryExpression)) return;
        break;
      case K.ShorthandPropertyAssignment:
        edits.after((node as ts.ShorthandPropertyAssignment).name.end, [':', '$']);
        break;
      case K.BindingElement: {
        const element = node as ts.BindingElement;
        if (parent.kind === K.ObjectBindingPattern && !element.propertyName && element.name.kind === K.Identifier) edits.after(element.name.end, [':', '$']);
        break;
      }
      case K.TaggedTemplateExpression:
      case K.ExpressionWithTypeArguments:
        dropList((node as ts.CallExpression).typeArguments);
        break;
      case K.AsExpression:
      case K.SatisfiesExpression:
      case K.NonNullExpression:
        edits.dropRange((node as ts.AsExpression).expression.end, node.end);
        break;
      case K.TypeAssertionExpression:
        edits.dropRange(node.getStart(source), (node as ts.TypeAssertion).expression.pos);
        break;
      default:
        if (LOOPS.has(kind)) unbrace((node as ts.IterationStatement).statement);
    }
    if (!WRAPPERS.has(kind)) children(node);
    else children(node, undefined, { parent, slot, parenAbove: parenAbove || kind === K.ParenthesizedExpression });
  };

  /** `{ x }` → `x` as the body of an `if`, `else` or loop. */
  const unbrace = (body: ts.Statement | undefined) => {
    if (body?.kind === K.Block && statementsIn(body as ts.Block, does) <= 1) {
      edits.drop(body.getStart(source));
      edits.drop(body.end - 1);
    }
  };

  /** `==` → `===`; `a op= b` → `a = a op b`: true when it visited the children itself. */
  const binary = (node: ts.BinaryExpression): boolean => {
    const operator = node.operatorToken;
    const equality = EQUALITY[operator.kind];
    if (equality) edits.replace(operator.getStart(source), [equality]);
    const op = COMPOUND[operator.kind];
    if (op === undefined) return false;
    const wraps = ts.isParenthesizedExpression(ts.factory.createBinaryExpression(node.left, op, effective(node.right) as ts.Expression).right);
    edits.replace(operator.getStart(source), ['=', { copy: [node.left.getStart(source), node.left.end] }, ts.tokenToString(op)!, ...(wraps ? ['('] : [])]);
    children(node, wraps ? () => edits.after(node.right.end, [')']) : undefined);
    return true;
  };

  /** `a++`, `++a` → `a = a + 1`: true when it visited the children itself. */
  const step = (node: ts.PrefixUnaryExpression | ts.PostfixUnaryExpression): boolean => {
    if (node.operator !== K.PlusPlusToken && node.operator !== K.MinusMinusToken) return false;
    const spelled: Insert[] = ['=', { copy: [node.operand.getStart(source), node.operand.end] }, node.operator === K.PlusPlusToken ? '+' : '-', 'num'];
    children(node, () => {
      if (node.kind === K.PostfixUnaryExpression) edits.replace(node.end - 2, spelled);
      else {
        edits.drop(node.getStart(source));
        edits.after(node.operand.end, spelled);
      }
    });
    return true;
  };

  /** `a['b']` → `a.b`. */
  const dotted = (node: ts.ElementAccessExpression) => {
    const key = effective(node.argumentExpression);
    if (key.kind !== K.StringLiteral || !/^[A-Za-z_$][\w$]*$/.test((key as ts.StringLiteral).text)) return;
    edits.replace(tokenAt(K.OpenBracketToken, node.expression.end), ['.']);
    edits.replace(key.getStart(source), [(key as ts.StringLiteral).text]);
    edits.drop(node.end - 1);
  };

  /** `let`/`const`/`var` → `let`, `, b = …` → `let b = …`, `const f = (x) => …` → `function f(x) …`. */
  const variables = (list: ts.VariableDeclarationList, parent: ts.Node) => {
    const keyword = list.getStart(source);
    const [first] = list.declarations;
    const init = first?.initializer && effective(first.initializer);
    if (ts.isVariableStatement(parent) && list.declarations.length === 1 && ts.isIdentifier(first.name) && init
      && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
      named.add(init);
      edits.replace(keyword, ['function']);
      edits.drop(first.initializer!.pos - 1);
      return;
    }
    if (/^(let|const|var)\b/.test(text.slice(keyword, keyword + 6))) edits.replace(keyword, ['let']);
    for (const declaration of list.declarations.slice(1)) edits.replace(declaration.pos - 1, ['let']);
  };

  /** `(x) => e` → `function (x) { return e }` (the braces and `return` added, the arrow dropped). */
  const arrow = (node: ts.ArrowFunction) => {
    const prefix = named.has(node) ? [] : ['function'];
    const from = node.typeParameters ? node.typeParameters.end + 1 : (node.modifiers?.at(-1)?.end ?? node.pos);
    const open = tokenAt(ts.SyntaxKind.OpenParenToken, from, node.equalsGreaterThanToken.getStart(source));
    const [only] = node.parameters;
    if (open >= 0) edits.replace(open, [...prefix, '(']);
    else if (only) {
      edits.replace(only.getStart(source), [...prefix, '(', '$']);
      edits.after(only.end, [')']);
    }
    edits.drop(node.equalsGreaterThanToken.getStart(source));
    if (!ts.isBlock(node.body)) edits.before(node.body.getStart(source), ['{', 'return']);
  };

  todo.push({ node: source, parent: source, slot: source, parenAbove: false });
  for (let task = todo.pop(); task; task = todo.pop()) {
    if (typeof task === 'function') task();
    else visit(task.node, task.parent, task.slot, task.parenAbove);
  }
  return edits.done();
}
