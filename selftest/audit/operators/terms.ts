/**
 * Dropped and doubled terms: `a + b` loses either side; `x += e` adds e twice; a call that makes a
 * value (`Math.sqrt(d)`, `Math.exp(s)`, `Math.fround(v)`) is left out, its argument kept.
 */
import ts from 'typescript';
import { nodes, replace, type Operator, type OperatorMutant } from './operator';

const DROPPABLE_CALLS = new Set(['sqrt', 'exp', 'fround', 'abs']);

const isText = (n: ts.Expression) => ts.isStringLiteral(n) || ts.isTemplateExpression(n) || ts.isNoSubstitutionTemplateLiteral(n);

export const terms: Operator = {
  name: 'Terms',
  mutants: (file) =>
    nodes(file).flatMap((n): OperatorMutant[] => {
      if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken && !isText(n.left) && !isText(n.right)) {
        return [
          { operator: 'DroppedTerm', edits: [replace(n, `(${n.left.getText()})`)] },
          { operator: 'DroppedTerm', edits: [replace(n, `(${n.right.getText()})`)] },
        ];
      }
      if (ts.isBinaryExpression(n) && (n.operatorToken.kind === ts.SyntaxKind.PlusEqualsToken || n.operatorToken.kind === ts.SyntaxKind.MinusEqualsToken)) {
        return [{ operator: 'DoubledTerm', edits: [replace(n.right, `2 * (${n.right.getText()})`)] }];
      }
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.expression.getText() === 'Math'
        && DROPPABLE_CALLS.has(n.expression.name.text) && n.arguments.length === 1) {
        return [{ operator: 'DroppedCall', edits: [replace(n, `(${n.arguments[0].getText()})`)] }];
      }
      return [];
    }),
};
