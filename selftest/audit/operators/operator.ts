/**
 * What a mutation operator is: a named rule that finds places in a TypeScript source and says how
 * each changes (text edits by offset). The operators here are the ones Stryker's instrumenter
 * lacks (stryker.ts brings its own); each is a small module with its own tests, as Stryker's are.
 */
import ts from 'typescript';

export interface Edit {
  start: number;
  end: number;
  text: string;
}

export interface OperatorMutant {
  operator: string;
  edits: Edit[];
  /** The span whose lines say where the mistake is (its truth); the first edit's when not given. */
  at?: { start: number; end: number };
}

export interface Operator {
  name: string;
  mutants(file: ts.SourceFile): OperatorMutant[];
}

export function parse(name: string, text: string): ts.SourceFile {
  return ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

/** Every node of the file, depth first. */
export function nodes(file: ts.SourceFile): ts.Node[] {
  const all: ts.Node[] = [];
  const visit = (node: ts.Node) => {
    all.push(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return all;
}

export const replace = (node: ts.Node, text: string): Edit => ({ start: node.getStart(), end: node.getEnd(), text });

/** Whether `node` sits inside a function (a declaration, expression, arrow or method). */
export function insideFunction(node: ts.Node): boolean {
  for (let at = node.parent; at; at = at.parent) if (ts.isFunctionLike(at)) return true;
  return false;
}

/** The names bound by the for-loops and function parameters around `node`, nearest first. */
export function indexNames(node: ts.Node): string[] {
  const names: string[] = [];
  for (let at = node.parent; at; at = at.parent) {
    if (ts.isForStatement(at) && at.initializer && ts.isVariableDeclarationList(at.initializer)) {
      for (const d of at.initializer.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    }
    if (ts.isArrowFunction(at) || ts.isFunctionExpression(at)) {
      for (const p of at.parameters) if (ts.isIdentifier(p.name)) names.push(p.name.text);
    }
  }
  return [...new Set(names)];
}

/** Identifiers read in `node` (not property names). */
export function identifiersIn(node: ts.Node): ts.Identifier[] {
  const found: ts.Identifier[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isIdentifier(n) && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n)) found.push(n);
    ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/** Applies edits (not overlapping) to a text. */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}
