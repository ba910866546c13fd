/**
 * Reorderings that stay correct: the same arithmetic in another order, which rounds differently in
 * the last bits and nothing else. A sum or product of three terms grouped the other way (`a + b + c`
 * → `a + (b + c)`; on whole numbers, as indices are, exact), a division by a square root made a
 * product by its reciprocal (`s / Math.sqrt(d)` → `s * (1 / Math.sqrt(d))`), and a loop that only
 * accumulates (`sum += …`) run backwards. Each must get full marks: a claim said of one is a claim
 * about nothing wrong.
 */
import ts from 'typescript';
import { nodes, replace, type Operator, type OperatorMutant } from './operator';

const isText = (n: ts.Expression) => ts.isStringLiteral(n) || ts.isTemplateExpression(n) || ts.isNoSubstitutionTemplateLiteral(n);
const isOp = (n: ts.Node, op: ts.SyntaxKind): n is ts.BinaryExpression => ts.isBinaryExpression(n) && n.operatorToken.kind === op;
const ASSOCIATIVE = [ts.SyntaxKind.PlusToken, ts.SyntaxKind.AsteriskToken];

/** A loop whose body only adds into running values (`s += …;` statements): the order of its additions is its only order. */
function onlyAccumulates(loop: ts.ForStatement): boolean {
  const body = ts.isBlock(loop.statement) ? loop.statement.statements : [loop.statement];
  return body.length > 0 && body.every((s) => ts.isExpressionStatement(s) && ts.isBinaryExpression(s.expression) && s.expression.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken);
}

function reversedLoop(loop: ts.ForStatement): OperatorMutant[] {
  const init = loop.initializer;
  const cond = loop.condition;
  if (!init || !ts.isVariableDeclarationList(init) || init.declarations.length !== 1 || !cond || !loop.incrementor || !onlyAccumulates(loop)) return [];
  const [decl] = init.declarations;
  if (!ts.isIdentifier(decl.name) || !decl.initializer || !ts.isBinaryExpression(cond) || cond.operatorToken.kind !== ts.SyntaxKind.LessThanToken) return [];
  const i = decl.name.text;
  if (cond.left.getText() !== i || loop.incrementor.getText() !== `${i}++`) return [];
  const header = `let ${i} = (${cond.right.getText()}) - 1; ${i} >= ${decl.initializer.getText()}; ${i}--`;
  return [{ operator: 'FloatReorder', edits: [{ start: init.getStart(), end: loop.incrementor.getEnd(), text: header }] }];
}

export const floatReorder: Operator = {
  name: 'FloatReorder',
  mutants: (file) =>
    nodes(file).flatMap((n): OperatorMutant[] => {
      if (ts.isForStatement(n)) return reversedLoop(n);
      if (!ts.isBinaryExpression(n)) return [];
      const op = n.operatorToken.kind;
      if (ASSOCIATIVE.includes(op) && isOp(n.left, op) && !isOp(n.parent, op) && ![n.right, n.left.left, n.left.right].some(isText)) {
        const sign = n.operatorToken.getText();
        return [{ operator: 'FloatReorder', edits: [replace(n, `${n.left.left.getText()} ${sign} (${n.left.right.getText()} ${sign} ${n.right.getText()})`)] }];
      }
      if (op === ts.SyntaxKind.SlashToken && /^Math\.sqrt\(/.test(n.right.getText())) {
        return [{ operator: 'FloatReorder', edits: [replace(n, `${n.left.getText()} * (1 / ${n.right.getText()})`)] }];
      }
      return [];
    }),
};
