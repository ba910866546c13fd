/**
 * Multi-head attention broken one part at a time, on the lines whose `// audit:` part is that part
 * (regions.ts): a projection reads another weight (qProj ↔ kProj, vProj → kProj) or loses its
 * transpose; the split or the merge loses its transpose, or exchanges the heads' two dims in a
 * reshape; the heads attend without the mask; the output projection is left out.
 */
import ts from 'typescript';
import { linesParts, type Part } from '../regions';
import { nodes, replace, type Operator, type OperatorMutant } from './operator';

const WEIGHTS: Record<string, string[]> = { qProj: ['kProj'], kProj: ['qProj'], vProj: ['kProj'], q_proj: ['k_proj'], k_proj: ['q_proj'], v_proj: ['k_proj'] };

/** The parts of the line `node` starts on. */
function partsAt(file: ts.SourceFile, parts: Part[][], node: ts.Node): Part[] {
  return parts[file.getLineAndCharacterOfPosition(node.getStart()).line] ?? [];
}

function mutantsAt(n: ts.Node, parts: Part[]): OperatorMutant[] {
  const has = (...wanted: Part[]) => wanted.some((p) => parts.includes(p));
  const out: OperatorMutant[] = [];
  if (has('projection') && ts.isIdentifier(n) && WEIGHTS[n.text] && ts.isPropertyAccessExpression(n.parent) && n.parent.name === n) {
    for (const other of WEIGHTS[n.text]) out.push({ operator: 'SwappedWeight', edits: [replace(n, other)] });
  }
  if (!ts.isCallExpression(n) || !ts.isPropertyAccessExpression(n.expression)) {
    if (has('heads') && ts.isIdentifier(n) && n.text === 'mask' && ts.isCallExpression(n.parent) && n.parent.arguments.includes(n)) {
      out.push({ operator: 'DroppedMask', edits: [replace(n, 'undefined')] });
    }
    return out;
  }
  const method = n.expression.name.text;
  const receiver = n.expression.expression.getText();
  if (has('projection', 'split', 'merge', 'oproj') && method === 'transpose') out.push({ operator: 'DroppedTranspose', edits: [replace(n, receiver)] });
  if (has('split', 'merge') && method === 'reshape' && n.arguments.length >= 2) {
    const [a, b] = n.arguments.slice(-2);
    out.push({ operator: 'SwappedHeadDims', edits: [replace(a, b.getText()), replace(b, a.getText())] });
  }
  if (has('oproj') && /[oO]_?[pP]roj/.test(n.arguments.map((a) => a.getText()).join()) && method === 'matmul') {
    out.push({ operator: 'DroppedOutputProjection', edits: [replace(n, receiver)] });
  }
  return out;
}

/** `project(merged, w.oProj)`: a call of a helper on the concatenation and oProj becomes the concatenation. */
function helperOutputProjection(n: ts.Node, parts: Part[]): OperatorMutant[] {
  if (!parts.includes('oproj') || !ts.isCallExpression(n) || n.arguments.length !== 2) return [];
  const [input, weight] = n.arguments;
  return /[oO]_?[pP]roj/.test(weight.getText()) ? [{ operator: 'DroppedOutputProjection', edits: [replace(n, input.getText())] }] : [];
}

export const multiHeadParts: Operator = {
  name: 'MultiHeadParts',
  mutants: (file) => {
    const parts = linesParts(file.text, file.fileName);
    return nodes(file).flatMap((n) => [...mutantsAt(n, partsAt(file, parts, n)), ...helperOutputProjection(n, partsAt(file, parts, n))]);
  },
};
