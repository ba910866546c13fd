/**
 * Missing resets: a running value declared inside a loop (`let sum = 0` for each query) is
 * declared once before the loop instead, so it carries from one iteration to the next; a
 * statement that resets one (`sum = 0;`, `acc.fill(0);`) is left out.
 */
import ts from 'typescript';
import { identifiersIn, nodes, replace, type Operator, type OperatorMutant } from './operator';

type Loop = ts.ForStatement | ts.ForOfStatement | ts.ForInStatement | ts.WhileStatement | ts.DoStatement;
const isLoop = (n: ts.Node): n is Loop => ts.isForStatement(n) || ts.isForOfStatement(n) || ts.isForInStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n);

/** The innermost loop whose body holds `node`, stopping at a function boundary. */
function enclosingLoop(node: ts.Node): Loop | undefined {
  for (let at = node.parent; at; at = at.parent) {
    if (ts.isFunctionLike(at)) return undefined;
    if (isLoop(at) && at.statement.pos <= node.pos && node.end <= at.statement.end) return at;
  }
  return undefined;
}

/** Names declared anywhere inside `loop` (its own variable included). */
function declaredIn(loop: Loop): Set<string> {
  const names = new Set<string>();
  const visit = (n: ts.Node) => {
    if ((ts.isVariableDeclaration(n) || ts.isParameter(n)) && ts.isIdentifier(n.name)) names.add(n.name.text);
    ts.forEachChild(n, visit);
  };
  visit(loop);
  return names;
}

const RESET = /^(?:\w+ = (?:0|-?Infinity|-?1e9|\[\])|\w+\.fill\(0\));$/;

export const missingReset: Operator = {
  name: 'MissingReset',
  mutants: (file) =>
    nodes(file).flatMap((n): OperatorMutant[] => {
      if (ts.isVariableStatement(n) && ts.isBlock(n.parent)) {
        const loop = enclosingLoop(n);
        const list = n.declarationList;
        if (!loop || list.declarations.length !== 1 || !list.declarations[0].initializer) return [];
        const inner = declaredIn(loop);
        inner.delete((list.declarations[0].name as ts.Identifier).text);
        if (identifiersIn(list.declarations[0].initializer).some((id) => inner.has(id.text))) return [];
        const declaration = `let ${list.declarations[0].getText()};\n`;
        const indent = ' '.repeat(loop.getStart() - file.getLineStarts()[file.getLineAndCharacterOfPosition(loop.getStart()).line]);
        return [{ operator: 'MissingReset', edits: [replace(n, ';'), { start: loop.getStart(), end: loop.getStart(), text: `${declaration}${indent}` }], at: { start: n.getStart(), end: n.getEnd() } }];
      }
      if (ts.isExpressionStatement(n) && enclosingLoop(n) && RESET.test(n.getText())) return [{ operator: 'MissingReset', edits: [replace(n, ';')] }];
      return [];
    }),
};
