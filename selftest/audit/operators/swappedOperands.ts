/**
 * Operands the other way round: `Q.matmul(K.transpose(-2, -1))` becomes `K.matmul(Q.transpose(-2, -1))`
 * (K Qᵀ); in loops, the two factors of a product exchange the loop index that is theirs alone
 * (`q[i·d + c] * k[j·d + c]` → `q[j·d + c] * k[i·d + c]`); a call's first two arguments trade
 * places (`attention(k, q, v, mask)`).
 */
import ts from 'typescript';
import { identifiersIn, indexNames, nodes, replace, type Edit, type Operator, type OperatorMutant } from './operator';

/** `A.matmul(B.transpose(x, y))` → `B.matmul(A.transpose(x, y))`. */
function matmulSwapped(n: ts.CallExpression): OperatorMutant[] {
  if (!ts.isPropertyAccessExpression(n.expression) || n.expression.name.text !== 'matmul' || n.arguments.length !== 1) return [];
  const [arg] = n.arguments;
  if (!ts.isCallExpression(arg) || !ts.isPropertyAccessExpression(arg.expression) || arg.expression.name.text !== 'transpose') return [];
  const a = n.expression.expression.getText();
  const b = arg.expression.expression.getText();
  const axes = arg.arguments.map((x) => x.getText()).join(', ');
  return [{ operator: 'SwappedOperands', edits: [replace(n, `${b}.matmul(${a}.transpose(${axes}))`)] }];
}

/** In `x[…i…] * y[…j…]`, i and j (loop indices each factor has alone) exchanged. */
function factorsSwapped(n: ts.BinaryExpression): OperatorMutant[] {
  if (n.operatorToken.kind !== ts.SyntaxKind.AsteriskToken || !ts.isElementAccessExpression(n.left) || !ts.isElementAccessExpression(n.right)) return [];
  const scope = indexNames(n);
  const ids = (e: ts.ElementAccessExpression) => identifiersIn(e.argumentExpression).filter((id) => scope.includes(id.text));
  const [left, right] = [ids(n.left), ids(n.right)];
  const own = (mine: ts.Identifier[], theirs: ts.Identifier[]) => [...new Set(mine.map((id) => id.text))].filter((name) => !theirs.some((id) => id.text === name));
  const [x, y] = [own(left, right), own(right, left)];
  if (x.length !== 1 || y.length !== 1) return [];
  const edits: Edit[] = [
    ...left.filter((id) => id.text === x[0]).map((id) => ({ start: id.getStart(), end: id.getEnd(), text: y[0] })),
    ...right.filter((id) => id.text === y[0]).map((id) => ({ start: id.getStart(), end: id.getEnd(), text: x[0] })),
  ];
  return [{ operator: 'SwappedOperands', edits }];
}

/** An argument that names or computes a value (not a literal, not a spread). */
const isOperand = (e: ts.Expression) => ts.isIdentifier(e) || ts.isPropertyAccessExpression(e) || ts.isCallExpression(e) || ts.isElementAccessExpression(e);

/** `f(a, b, c…)` → `f(b, a, c…)` for a call of three arguments or more, the first two operands. */
function argumentsSwapped(n: ts.CallExpression): OperatorMutant[] {
  if (n.arguments.length < 3) return [];
  const [a, b] = n.arguments;
  if (!isOperand(a) || !isOperand(b) || a.getText() === b.getText()) return [];
  return [{ operator: 'SwappedOperands', edits: [replace(a, b.getText()), replace(b, a.getText())] }];
}

export const swappedOperands: Operator = {
  name: 'SwappedOperands',
  mutants: (file) =>
    nodes(file).flatMap((n): OperatorMutant[] => {
      if (ts.isCallExpression(n)) return [...matmulSwapped(n), ...argumentsSwapped(n)];
      if (ts.isBinaryExpression(n)) return factorsSwapped(n);
      return [];
    }),
};
