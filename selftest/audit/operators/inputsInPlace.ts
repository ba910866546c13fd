/**
 * Inputs changed in place: a copy of an input's data the code then writes into
 * (`Float64Array.from(x.data)`, `mask.data.slice()`, `x.clone()`) becomes the input's own data.
 */
import ts from 'typescript';
import { nodes, replace, type Operator, type OperatorMutant } from './operator';

const COPIES = /^(?:(?:Float64Array|Float32Array|Uint8Array|Array)\.from\((\w+)\.data\)|(\w+)\.data\.slice\(\)|new (?:Float64Array|Float32Array|Uint8Array)\((\w+)\.data\))$/;

export const inputsInPlace: Operator = {
  name: 'InputsInPlace',
  mutants: (file) =>
    nodes(file).flatMap((n): OperatorMutant[] => {
      if (!ts.isCallExpression(n) && !ts.isNewExpression(n)) return [];
      const text = n.getText();
      const copied = COPIES.exec(text);
      if (copied) return [{ operator: 'InputsInPlace', edits: [replace(n, `${copied[1] ?? copied[2] ?? copied[3]}.data`)] }];
      const clone = /^(\w+)\.clone\(\)$/.exec(text);
      return clone ? [{ operator: 'InputsInPlace', edits: [replace(n, clone[1])] }] : [];
    }),
};
