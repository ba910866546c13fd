/**
 * Wrong constants and initial values: a number becomes its neighbours (0 → 1; 1 → 0, 2; n → n ± 1;
 * a fraction doubled or halved), and ±Infinity becomes 0 or ±1e9, as a running max started at 0
 * or a mask filled with a large finite number.
 */
import ts from 'typescript';
import { nodes, replace, type Operator, type OperatorMutant } from './operator';

function neighbours(value: number): number[] {
  if (value === 0) return [1];
  if (value === 1) return [0, 2];
  if (Number.isInteger(value)) return [value - 1, value + 1];
  return [value * 2, value / 2];
}

export const constants: Operator = {
  name: 'Constant',
  mutants: (file) =>
    nodes(file).flatMap((n): OperatorMutant[] => {
      if (ts.isNumericLiteral(n) && !ts.isPropertyAccessExpression(n.parent)) {
        return neighbours(Number(n.text)).map((v) => ({ operator: 'Constant', edits: [replace(n, String(v))] }));
      }
      if (ts.isIdentifier(n) && n.text === 'Infinity' && !ts.isPropertyAccessExpression(n.parent)) {
        const negated = ts.isPrefixUnaryExpression(n.parent) && n.parent.operator === ts.SyntaxKind.MinusToken;
        const target = negated ? n.parent : n;
        return [0, negated ? -1e9 : 1e9].map((v) => ({ operator: 'InitialValue', edits: [replace(target, v === 0 ? '0' : `(${v})`)] }));
      }
      return [];
    }),
};
