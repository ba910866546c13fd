/**
 * State kept across calls: an array a function allocates on each call is kept in the module and
 * reused by the next call of the same size (to save an allocation), with whatever the last call
 * left in it.
 */
import ts from 'typescript';
import { insideFunction, nodes, replace, type Operator, type OperatorMutant } from './operator';

const ARRAYS = new Set(['Float64Array', 'Float32Array', 'Uint8Array', 'Array']);

export const keptState: Operator = {
  name: 'KeptState',
  mutants: (file) =>
    nodes(file)
      .filter((n): n is ts.NewExpression => ts.isNewExpression(n) && ts.isIdentifier(n.expression) && ARRAYS.has(n.expression.text))
      .filter((n) => insideFunction(n) && n.arguments?.length === 1 && !/\.data$|\.length$/.test(n.arguments[0].getText()))
      .map((n, index): OperatorMutant => {
        const kept = `__kept${index}`;
        const size = n.arguments![0].getText();
        return {
          operator: 'KeptState',
          edits: [
            replace(n, `(${kept} !== undefined && ${kept}.length === (${size}) ? ${kept} : (${kept} = ${n.getText()}))`),
            { start: file.getEnd(), end: file.getEnd(), text: `\nlet ${kept}: any;\n` },
          ],
          at: { start: n.getStart(), end: n.getEnd() },
        };
      }),
};
