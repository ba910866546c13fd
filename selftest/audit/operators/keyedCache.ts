/**
 * State kept under a key that leaves something out: a value a function computes from its
 * arguments (a mask's fill, a scale, a projection) is cached in the module under the shapes of the
 * tensors it reads, not their values, and a later call with other values of the same shapes gets
 * the first call's.
 */
import ts from 'typescript';
import { identifiersIn, nodes, replace, type Operator, type OperatorMutant } from './operator';

/**
 * The parameters of the function `node` sits in, when no loop stands between them (a value
 * computed once per call, not once per iteration); none otherwise.
 */
function parametersAround(node: ts.Node): string[] {
  for (let at = node.parent; at; at = at.parent) {
    if (ts.isFunctionLike(at)) return at.parameters.flatMap((p) => (ts.isIdentifier(p.name) ? [p.name.text] : []));
    if (ts.isIterationStatement(at, false)) return [];
  }
  return [];
}

const isFunction = (n: ts.Expression) => ts.isArrowFunction(n) || ts.isFunctionExpression(n);

export const keyedCache: Operator = {
  name: 'KeyedCache',
  mutants: (file) =>
    nodes(file)
      .filter((n): n is ts.VariableDeclaration => ts.isVariableDeclaration(n) && n.initializer !== undefined && !isFunction(n.initializer))
      .flatMap((declaration, index): OperatorMutant[] => {
        const init = declaration.initializer!;
        const params = parametersAround(declaration);
        const read = [...new Set(identifiersIn(init).map((id) => id.text).filter((name) => params.includes(name)))];
        // An initializer that is a parameter itself keeps nothing worth caching.
        if (read.length === 0 || (ts.isIdentifier(init) && read.includes(init.text))) return [];
        const cache = `__cache${index}`;
        // A tensor by its shape, a number by its value, anything else (the weights, a plain array) not at all.
        const key = `JSON.stringify([${read.map((name) => `(${name} as any)?.shape ?? (typeof ${name} === 'number' ? ${name} : null)`).join(', ')}])`;
        return [{
          operator: 'KeyedCache',
          edits: [
            replace(init, `(${cache}.has(${key}) ? ${cache}.get(${key}) : (${cache}.set(${key}, (${init.getText()})), ${cache}.get(${key})))`),
            { start: file.getEnd(), end: file.getEnd(), text: `\nconst ${cache} = new Map<string, any>();\n` },
          ],
          at: { start: declaration.getStart(), end: declaration.getEnd() },
        }];
      }),
};
