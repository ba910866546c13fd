/**
 * The wrong axis: a dim given to a tensor method (transpose, max, sum, softmax, permute, unsqueeze…)
 * becomes its neighbour (−1 ↔ −2, 0 ↔ 1, 2 → 1), and a softmax's `dim` becomes −1.
 */
import ts from 'typescript';
import { nodes, replace, type Operator, type OperatorMutant } from './operator';

const AXIS_METHODS = new Set(['transpose', 'max', 'min', 'sum', 'mean', 'softmax', 'permute', 'unsqueeze', 'squeeze']);
const NEIGHBOUR: Record<string, string[]> = { '-1': ['-2'], '-2': ['-1', '-3'], '-3': ['-2'], '0': ['1'], '1': ['0', '2'], '2': ['1', '3'], '3': ['2'] };
const AXIS_NAMES = new Set(['dim', 'axis']);

export const wrongAxis: Operator = {
  name: 'WrongAxis',
  mutants: (file) =>
    nodes(file).flatMap((n): OperatorMutant[] => {
      if (!ts.isCallExpression(n) || !ts.isPropertyAccessExpression(n.expression) || !AXIS_METHODS.has(n.expression.name.text)) return [];
      return n.arguments.flatMap((arg) => {
        if (ts.isIdentifier(arg) && AXIS_NAMES.has(arg.text)) return [{ operator: 'WrongAxis', edits: [replace(arg, '-1')] }];
        return (NEIGHBOUR[arg.getText()] ?? []).map((axis) => ({ operator: 'WrongAxis', edits: [replace(arg, axis)] }));
      });
    }),
};
