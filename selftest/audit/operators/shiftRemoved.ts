/**
 * A shift removed: what exp is taken of loses the number subtracted from it (`Math.exp(s - max)` →
 * `Math.exp(s)`, `x.sub(m).exp()` → `x.exp()`), one place at a time, so that a numerator can keep
 * its shift while the denominator's sum loses it.
 */
import ts from 'typescript';
import { nodes, replace, type Operator, type OperatorMutant } from './operator';

export const shiftRemoved: Operator = {
  name: 'ShiftRemoved',
  mutants: (file) =>
    nodes(file).flatMap((n): OperatorMutant[] => {
      if (!ts.isCallExpression(n) || !ts.isPropertyAccessExpression(n.expression)) return [];
      const { expression: target, name } = n.expression;
      if (name.text !== 'exp') return [];
      // Math.exp(a - b) → Math.exp(a)
      if (target.getText() === 'Math' && n.arguments.length === 1) {
        const arg = n.arguments[0];
        const inner = ts.isParenthesizedExpression(arg) ? arg.expression : arg;
        if (ts.isBinaryExpression(inner) && inner.operatorToken.kind === ts.SyntaxKind.MinusToken) return [{ operator: 'ShiftRemoved', edits: [replace(arg, inner.left.getText())] }];
        return [];
      }
      // a.sub(b).exp() → a.exp()
      if (ts.isCallExpression(target) && ts.isPropertyAccessExpression(target.expression) && target.expression.name.text === 'sub') {
        return [{ operator: 'ShiftRemoved', edits: [replace(target, target.expression.expression.getText())] }];
      }
      return [];
    }),
};
