/**
 * A copy disguised as a student would disguise it, by a program: rewrites that change nothing a
 * program does, drawn at random from a seed, applied to the parse tree and printed again. The
 * similarity check must still find the copy whatever the draw (selftest/similarity, and
 * selftest/attacks/similarity.test.ts for the no-op syntax of issue 27).
 */
import seedrandom from 'seedrandom';
import ts from 'typescript';

type Rng = () => number;
type Rewrite = (rng: Rng) => ts.TransformerFactory<ts.SourceFile>;

/** Names a program renames: everything a submission chooses, not the API's (after a dot) nor the contract's exports. */
const KEEP = new Set(['softmax', 'scaledDotProductAttention', 'causalMask', 'multiHeadSelfAttention', 'Tensor', 'Math', 'Array', 'Number',
  'Float32Array', 'Float64Array', 'Uint8Array', 'Error', 'Infinity', 'undefined', 'Object', 'Set', 'Map', 'NotImplementedError']);

const f = ts.factory;

/** A transformer that rewrites every node `rewrite` returns a node for, children first. */
const everywhere = (rewrite: (node: ts.Node) => ts.Node | undefined): ts.TransformerFactory<ts.SourceFile> => (context) => (root) => {
  const visit = (node: ts.Node): ts.Node => {
    const visited = ts.visitEachChild(node, visit, context);
    return rewrite(visited) ?? visited;
  };
  return ts.visitNode(root, visit) as ts.SourceFile;
};

const isOwnName = (node: ts.Identifier) => {
  const parent = node.parent as ts.Node | undefined;
  if (!parent) return true;
  return !KEEP.has(node.text) && !(ts.isPropertyAccessExpression(parent) && parent.name === node) && !ts.isPropertySignature(parent)
    && !ts.isPropertyAssignment(parent) && !ts.isShorthandPropertyAssignment(parent) && !ts.isImportSpecifier(parent)
    && !ts.isExportSpecifier(parent) && !(ts.isBindingElement(parent) && !parent.propertyName && ts.isObjectBindingPattern(parent.parent));
};

const statementLists = (rewrite: (statements: readonly ts.Statement[]) => ts.Statement[]) => everywhere((node) => {
  if (ts.isSourceFile(node)) return f.updateSourceFile(node, rewrite(node.statements));
  if (ts.isBlock(node)) return f.updateBlock(node, rewrite(node.statements));
  return undefined;
});

const BINARY: Partial<Record<ts.SyntaxKind, ts.BinaryOperator>> = {
  [ts.SyntaxKind.PlusEqualsToken]: ts.SyntaxKind.PlusToken, [ts.SyntaxKind.MinusEqualsToken]: ts.SyntaxKind.MinusToken,
  [ts.SyntaxKind.AsteriskEqualsToken]: ts.SyntaxKind.AsteriskToken, [ts.SyntaxKind.SlashEqualsToken]: ts.SyntaxKind.SlashToken,
};
const COMPOUND = Object.fromEntries(Object.entries(BINARY).map(([k, v]) => [v, Number(k)])) as Partial<Record<ts.SyntaxKind, ts.CompoundAssignmentOperator>>;

/** Each rewrite on its own: what it does is in its name. */
export const REWRITES: Record<string, Rewrite> = {
  renameEverything: () => (context) => (root) => {
    const names = new Map<string, string>();
    const visit = (node: ts.Node): ts.Node => {
      const renamed = (name: string) => {
        if (!names.has(name)) names.set(name, `v${names.size}${name.length % 3 ? 'x' : ''}`);
        return f.createIdentifier(names.get(name)!);
      };
      // `{ shape }` names a property and a variable: only the variable is renamed.
      if (ts.isShorthandPropertyAssignment(node) && !KEEP.has(node.name.text)) return f.createPropertyAssignment(node.name.text, renamed(node.name.text));
      if (ts.isBindingElement(node) && !node.propertyName && ts.isIdentifier(node.name) && ts.isObjectBindingPattern(node.parent)) {
        return f.createBindingElement(node.dotDotDotToken, node.name.text, renamed(node.name.text), node.initializer && (ts.visitNode(node.initializer, visit) as ts.Expression));
      }
      if (ts.isIdentifier(node) && isOwnName(node)) return renamed(node.text);
      return ts.visitEachChild(node, visit, context);
    };
    return ts.visitNode(root, visit) as ts.SourceFile;
  },
  reorderDeclarations: (rng) => () => (root) => {
    const imports: ts.Statement[] = root.statements.filter((s) => ts.isImportDeclaration(s) || ts.isExportDeclaration(s));
    const rest = root.statements.filter((s) => !imports.includes(s)).map((s) => [rng(), s] as const).sort((a, b) => a[0] - b[0]).map(([, s]) => s);
    return f.updateSourceFile(root, [...imports, ...rest]);
  },
  parenthesiseOperandsAndArguments: () => everywhere((node) => {
    const wrap = (e: ts.Expression) => f.createParenthesizedExpression(e);
    if (ts.isBinaryExpression(node) && node.operatorToken.kind !== ts.SyntaxKind.EqualsToken && !BINARY[node.operatorToken.kind]) {
      return f.updateBinaryExpression(node, wrap(node.left), node.operatorToken, wrap(node.right));
    }
    if (ts.isCallExpression(node)) return f.updateCallExpression(node, node.expression, node.typeArguments, node.arguments.map((a) => (ts.isSpreadElement(a) ? a : wrap(a))));
    if (ts.isReturnStatement(node) && node.expression) return f.updateReturnStatement(node, wrap(node.expression));
    if (ts.isVariableDeclaration(node) && node.initializer) return f.updateVariableDeclaration(node, node.name, node.exclamationToken, node.type, wrap(node.initializer));
    return undefined;
  }),
  semicolonAfterEveryStatement: () => statementLists((statements) => statements.flatMap((s) => [s, f.createEmptyStatement()])),
  bracesAroundEveryBody: () => everywhere((node) => {
    const block = (s: ts.Statement) => (ts.isBlock(s) ? s : f.createBlock([s], true));
    if (ts.isIfStatement(node)) return f.updateIfStatement(node, node.expression, block(node.thenStatement), node.elseStatement && (ts.isIfStatement(node.elseStatement) ? node.elseStatement : block(node.elseStatement)));
    if (ts.isForStatement(node)) return f.updateForStatement(node, node.initializer, node.condition, node.incrementor, block(node.statement));
    if (ts.isForOfStatement(node)) return f.updateForOfStatement(node, node.awaitModifier, node.initializer, node.expression, block(node.statement));
    if (ts.isWhileStatement(node)) return f.updateWhileStatement(node, node.expression, block(node.statement));
    return undefined;
  }),
  noBracesAroundOneStatement: () => everywhere((node) => {
    const bare = (s: ts.Statement) => (ts.isBlock(s) && s.statements.length === 1 && !ts.isVariableStatement(s.statements[0]) ? s.statements[0] : s);
    if (ts.isIfStatement(node) && !node.elseStatement) return f.updateIfStatement(node, node.expression, bare(node.thenStatement), undefined);
    if (ts.isForStatement(node)) return f.updateForStatement(node, node.initializer, node.condition, node.incrementor, bare(node.statement));
    if (ts.isWhileStatement(node)) return f.updateWhileStatement(node, node.expression, bare(node.statement));
    return undefined;
  }),
  varOrLetForConst: (rng) => everywhere((node) => {
    if (!ts.isVariableDeclarationList(node) || !ts.isVariableStatement(node.parent ?? node)) return undefined;
    return f.createVariableDeclarationList(node.declarations, rng() < 0.5 ? ts.NodeFlags.Let : ts.NodeFlags.None);
  }),
  compoundAssignmentsSpelledOut: () => everywhere((node) => {
    if (ts.isBinaryExpression(node) && BINARY[node.operatorToken.kind]) {
      return f.createAssignment(node.left, f.createBinaryExpression(node.left, BINARY[node.operatorToken.kind]!, f.createParenthesizedExpression(node.right)));
    }
    if (ts.isPostfixUnaryExpression(node) && node.operator === ts.SyntaxKind.PlusPlusToken) return f.createBinaryExpression(node.operand, ts.SyntaxKind.PlusEqualsToken, f.createNumericLiteral(1));
    return undefined;
  }),
  assignmentsCompounded: () => everywhere((node) => {
    if (!ts.isBinaryExpression(node) || node.operatorToken.kind !== ts.SyntaxKind.EqualsToken || !ts.isBinaryExpression(node.right)) return undefined;
    const op = COMPOUND[node.right.operatorToken.kind];
    if (op === undefined || !ts.isIdentifier(node.left) || !ts.isIdentifier(node.right.left) || node.left.text !== node.right.left.text) return undefined;
    return f.createBinaryExpression(node.left, op, node.right.right);
  }),
  typesRemoved: () => everywhere((node) => {
    if (ts.isParameter(node) && node.type) return f.updateParameterDeclaration(node, node.modifiers, node.dotDotDotToken, node.name, node.questionToken, undefined, node.initializer);
    if (ts.isVariableDeclaration(node) && node.type) return f.updateVariableDeclaration(node, node.name, node.exclamationToken, undefined, node.initializer);
    if (ts.isFunctionDeclaration(node) && node.type) return f.updateFunctionDeclaration(node, node.modifiers, node.asteriskToken, node.name, node.typeParameters, node.parameters, undefined, node.body);
    if (ts.isArrowFunction(node) && node.type) return f.updateArrowFunction(node, node.modifiers, node.typeParameters, node.parameters, undefined, node.equalsGreaterThanToken, node.body);
    if (ts.isAsExpression(node)) return node.expression;
    return undefined;
  }),
  functionsAsArrows: () => everywhere((node) => {
    if (!ts.isFunctionDeclaration(node) || !node.name || !node.body) return undefined;
    const arrow = f.createArrowFunction(undefined, node.typeParameters, node.parameters, node.type, f.createToken(ts.SyntaxKind.EqualsGreaterThanToken), node.body);
    return f.createVariableStatement(node.modifiers as readonly ts.ModifierLike[] as ts.Modifier[], f.createVariableDeclarationList([f.createVariableDeclaration(node.name, undefined, undefined, arrow)], ts.NodeFlags.Const));
  }),
  arrowsAsFunctionExpressions: () => everywhere((node) => {
    if (!ts.isArrowFunction(node)) return undefined;
    const body = ts.isBlock(node.body) ? node.body : f.createBlock([f.createReturnStatement(node.body)], true);
    return f.createFunctionExpression(node.modifiers as readonly ts.ModifierLike[] as ts.Modifier[], undefined, undefined, node.typeParameters, node.parameters, node.type, body);
  }),
  looseEquality: () => everywhere((node) => {
    if (!ts.isBinaryExpression(node)) return undefined;
    const loose = node.operatorToken.kind === ts.SyntaxKind.EqualsEqualsEqualsToken ? ts.SyntaxKind.EqualsEqualsToken
      : node.operatorToken.kind === ts.SyntaxKind.ExclamationEqualsEqualsToken ? ts.SyntaxKind.ExclamationEqualsToken : undefined;
    return loose === undefined ? undefined : f.updateBinaryExpression(node, node.left, f.createToken(loose), node.right);
  }),
  trailingCommas: () => everywhere((node) => {
    const trailing = <T extends ts.Node>(list: ts.NodeArray<T>) => (list.length ? f.createNodeArray([...list], true) : list);
    if (ts.isCallExpression(node)) return f.updateCallExpression(node, node.expression, node.typeArguments, trailing(node.arguments));
    if (ts.isArrayLiteralExpression(node)) return f.updateArrayLiteralExpression(node, trailing(node.elements));
    if (ts.isObjectLiteralExpression(node)) return f.updateObjectLiteralExpression(node, trailing(node.properties));
    return undefined;
  }),
  bracketsForProperties: () => everywhere((node) => {
    if (ts.isPropertyAccessExpression(node) && !ts.isCallExpression(node.parent ?? node) && ts.isIdentifier(node.name) && !ts.isPrivateIdentifier(node.name)
      && !node.questionDotToken) {
      return f.createElementAccessExpression(node.expression, f.createStringLiteral(node.name.text));
    }
    if (ts.isShorthandPropertyAssignment(node)) return f.createPropertyAssignment(node.name.text, f.createIdentifier(node.name.text));
    return undefined;
  }),
  statementsThatDoNothing: (rng) => statementLists((statements) => statements.flatMap((st) => {
    const inert = [f.createStringLiteral('step'), f.createNumericLiteral(0), f.createVoidZero(), f.createIdentifier('undefined')][Math.floor(rng() * 4)];
    return [st, f.createExpressionStatement(inert)];
  })),
  bareBlocks: () => statementLists((statements) => statements.map((st) => (ts.isExpressionStatement(st) || ts.isIfStatement(st) || ts.isForStatement(st) ? f.createBlock([st], true) : st))),
  optionalChaining: () => (context) => (root) => {
    // Every property read `a.b` as `a?.b`, and what follows it in the same chain (calls, indexing)
    // stays in the chain, as a student writes it; not where a value is assigned (`a?.b = c` is no JavaScript).
    const visit = (node: ts.Node, target: boolean): ts.Node => {
      if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
        return f.updateBinaryExpression(node, visit(node.left, true) as ts.Expression, node.operatorToken, visit(node.right, false) as ts.Expression);
      }
      if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) return node;
      if (ts.isDeleteExpression(node)) return node;
      const inner = (child: ts.Node) => visit(child, target && (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) && child === node.expression);
      if (ts.isPropertyAccessExpression(node) && !ts.isPrivateIdentifier(node.name) && node.expression.kind !== ts.SyntaxKind.SuperKeyword) {
        const expression = inner(node.expression) as ts.Expression;
        return target ? f.updatePropertyAccessExpression(node, expression, node.name) : f.createPropertyAccessChain(expression, f.createToken(ts.SyntaxKind.QuestionDotToken), node.name);
      }
      if (ts.isElementAccessExpression(node)) {
        const [expression, argument] = [inner(node.expression) as ts.Expression, visit(node.argumentExpression, false) as ts.Expression];
        return ts.isOptionalChain(expression) && !target ? f.createElementAccessChain(expression, undefined, argument) : f.updateElementAccessExpression(node, expression, argument);
      }
      if (ts.isCallExpression(node)) {
        const expression = visit(node.expression, false) as ts.Expression;
        const args = node.arguments.map((a) => visit(a, false) as ts.Expression);
        return ts.isOptionalChain(expression) ? f.createCallChain(expression, undefined, node.typeArguments, args) : f.updateCallExpression(node, expression, node.typeArguments, args);
      }
      return ts.visitEachChild(node, (child) => visit(child, false), context);
    };
    return visit(root, false) as ts.SourceFile;
  },
  newWithoutParentheses: () => everywhere((node) => (ts.isNewExpression(node) && node.arguments?.length === 0 ? f.createNewExpression(node.expression, node.typeArguments, undefined) : undefined)),
  commentsEverywhere: (rng) => statementLists((statements) => statements.map((s) => ts.addSyntheticLeadingComment(s, ts.SyntaxKind.SingleLineCommentTrivia, ` step ${Math.floor(rng() * 1000)}`, true))),
};

/** Rewrites that undo each other: a draw takes at most one of each set. */
export const EXCLUSIVE = [['bracesAroundEveryBody', 'noBracesAroundOneStatement'], ['compoundAssignmentsSpelledOut', 'assignmentsCompounded'], ['functionsAsArrows', 'arrowsAsFunctionExpressions']];

/** Which rewrites the draw of `seed` applies: each with probability one half, in a fixed order. */
export function drawRewrites(seed: string): string[] {
  const rng = seedrandom(seed);
  const chosen = Object.keys(REWRITES).filter(() => rng() < 0.5);
  return chosen.filter((name) => !EXCLUSIVE.some((set) => set.includes(name) && chosen.find((other) => set.includes(other)) !== name));
}

/** `code` with the named rewrites applied in order (their random choices drawn from `seed`), printed again. */
export function disguise(code: string, rewrites: readonly string[], seed = 'disguise'): string {
  const rng = seedrandom(`${seed}:apply`);
  let source = ts.createSourceFile('x.ts', code, ts.ScriptTarget.Latest, true);
  for (const name of rewrites) {
    const [out] = ts.transform(source, [REWRITES[name](rng)]).transformed;
    // Printed and parsed again: the next rewrite sees a tree with parents and positions.
    source = ts.createSourceFile('x.ts', ts.createPrinter({ removeComments: name !== 'commentsEverywhere' && !rewrites.includes('commentsEverywhere') }).printFile(out), ts.ScriptTarget.Latest, true);
  }
  return ts.createPrinter({ removeComments: !rewrites.includes('commentsEverywhere') }).printFile(source);
}
