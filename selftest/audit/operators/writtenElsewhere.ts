/**
 * Results written in the wrong place: where a result is stored (`out[(b * nQ + i) * dV + c] = …`,
 * `out.set(row, i * dV)`), one loop index runs the other way (`nQ - 1 - i`), so that rows, entries
 * or columns computed right land where others belong, as when they are written at a running
 * counter that counts in another order than the loops.
 */
import ts from 'typescript';
import { identifiersIn, nodes, type Operator, type OperatorMutant } from './operator';

/** The for-loops around `node` with their index and bound: `for (let i = 0; i < n; i++)`. */
function loopsAround(node: ts.Node): Map<string, string> {
  const loops = new Map<string, string>();
  for (let at = node.parent; at; at = at.parent) {
    if (ts.isFunctionLike(at)) break;
    if (!ts.isForStatement(at) || !at.initializer || !ts.isVariableDeclarationList(at.initializer) || !at.condition) continue;
    const [decl] = at.initializer.declarations;
    const cond = at.condition;
    if (!decl || !ts.isIdentifier(decl.name) || decl.initializer?.getText() !== '0') continue;
    if (!ts.isBinaryExpression(cond) || cond.operatorToken.kind !== ts.SyntaxKind.LessThanToken || cond.left.getText() !== decl.name.text) continue;
    if (!loops.has(decl.name.text)) loops.set(decl.name.text, cond.right.getText());
  }
  return loops;
}

/** Where a store's position is written: the index of `a[…] = / += / -=`, or the offset of `a.set(values, offset)`. */
function storePosition(n: ts.Node): ts.Expression | undefined {
  if (ts.isBinaryExpression(n) && [ts.SyntaxKind.EqualsToken, ts.SyntaxKind.PlusEqualsToken, ts.SyntaxKind.MinusEqualsToken].includes(n.operatorToken.kind)
    && ts.isElementAccessExpression(n.left)) return n.left.argumentExpression;
  if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'set' && n.arguments.length === 2) return n.arguments[1];
  return undefined;
}

export const writtenElsewhere: Operator = {
  name: 'WrittenElsewhere',
  mutants: (file) =>
    nodes(file).flatMap((n): OperatorMutant[] => {
      const position = storePosition(n);
      if (!position) return [];
      const loops = loopsAround(n);
      const used = identifiersIn(position).filter((id) => loops.has(id.text));
      return [...new Set(used.map((id) => id.text))].map((name) => ({
        operator: 'WrittenElsewhere',
        edits: used.filter((id) => id.text === name).map((id) => ({ start: id.getStart(), end: id.getEnd(), text: `(${loops.get(name)} - 1 - ${name})` })),
      }));
    }),
};
