/** Loop bounds off by one: `i < n` runs to n − 1 (`i < n - 1`); Stryker's `i <= n` is the other way. */
import ts from 'typescript';
import { nodes, replace, type Operator } from './operator';

const COMPARISONS = new Set([ts.SyntaxKind.LessThanToken, ts.SyntaxKind.LessThanEqualsToken, ts.SyntaxKind.GreaterThanToken, ts.SyntaxKind.GreaterThanEqualsToken]);

export const loopBound: Operator = {
  name: 'LoopBound',
  mutants: (file) =>
    nodes(file)
      .filter((n): n is ts.ForStatement => ts.isForStatement(n))
      .flatMap((loop) => {
        const cond = loop.condition;
        if (!cond || !ts.isBinaryExpression(cond) || !COMPARISONS.has(cond.operatorToken.kind)) return [];
        const upward = cond.operatorToken.kind === ts.SyntaxKind.LessThanToken || cond.operatorToken.kind === ts.SyntaxKind.LessThanEqualsToken;
        const bound = upward ? cond.right : cond.left;
        return [{ operator: 'LoopBound', edits: [replace(bound, `(${bound.getText()}) - 1`)] }];
      }),
};
