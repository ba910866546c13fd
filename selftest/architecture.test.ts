/**
 * The shape of the house, held as tests (docs/architecture.md draws it): lib/ is the harness and
 * never reaches into an assignment (it imports nothing from tests/, adapters/, reference/, student/
 * and names no graded function of any assignment the project declares); no two modules import
 * each other, directly or round a loop; and lib's folders stand in layers, each importing only its
 * own layer and those below.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { FunctionSpec } from '../lib/assignment/functions';
import { PROJECT_ROOT } from '../lib/paths';
import { ALL_FUNCTIONS } from '../adapters/functions';
import { importsOf } from './importGraph';

/**
 * lib's folders (and top-level files), bottom up. A module may import its own layer's and those
 * below; docs/architecture.md says what each layer is for.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['text', 'errors', 'format', 'shape', 'paths', 'random', 'fsAtomic', 'npmKept', 'cli', 'npy', 'tensorKernels', 'tensor', 'compare', 'workCache'],
  ['assignment', 'late', 'intake'],
  ['model'],
  ['diagnosis', 'sandbox'],
  ['report', 'typecheck'],
  ['grading', 'similarity', 'readmeTables', 'release'],
  ['batch', 'suite', 'gradescope', 'bench'],
];

/** The folders of an assignment: what the harness is handed, never what it imports. */
const ASSIGNMENT_FOLDERS = ['tests', 'adapters', 'reference', 'student'];

function walk(dir: string, keep: (file: string) => boolean): string[] {
  return fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isSymbolicLink()) return [];
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(rel, keep);
    return keep(rel) ? [rel] : [];
  });
}

const isSource = (file: string) => /\.(ts|mts)$/.test(file) && !file.endsWith('.d.ts');
const isProduct = (file: string) => isSource(file) && !/\.test\.ts$/.test(file);

/** The layer of a lib module: its folder's (lib/grading/…) or its own (lib/tensor.ts). */
function layerOf(file: string): number {
  const name = file.split('/')[1].replace(/\.ts$/, '');
  const at = LAYERS.findIndex((layer) => layer.includes(name));
  if (at < 0) throw new Error(`${file}: lib/${name} is in no layer of selftest/architecture.test.ts: place it in LAYERS and in docs/architecture.md`);
  return at;
}

/** Every import cycle among `files`, each as the files round it (Tarjan's strongly connected components, iterative). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1];
      const edges = graph.get(top.node) ?? [];
      if (top.edge < edges.length) {
        const to = edges[top.edge++];
        if (!graph.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length) low.set(work[work.length - 1].node, Math.min(low.get(work[work.length - 1].node)!, low.get(top.node)!));
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        for (let member = stack.pop()!; ; member = stack.pop()!) {
          onStack.delete(member);
          component.push(member);
          if (member === top.node) break;
        }
        if (component.length > 1 || (graph.get(top.node) ?? []).includes(top.node)) found.push(component.sort());
      }
    }
  }
  return found;
}

/**
 * Where `text` names one of the graded functions: an identifier or a string literal that is a
 * function's id or export, anywhere; and in a comment, an id or export that cannot be an ordinary
 * word (it holds an underscore or a capital: `scaled_dot_product_attention`, `causalMask`), so the
 * prose may still say what the harness is for.
 */
export function namings(text: string, names: readonly string[]): string[] {
  const exact = new Set(names);
  const distinctive = names.filter((n) => /[_A-Z]/.test(n));
  const found: string[] = [];
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  // The braces open in each template substitution being scanned: its closing brace resumes the
  // template's text, which is a string's, not code (a bare scan would read its words as identifiers).
  const substitutions: number[] = [];
  const TEMPLATE_TEXT = [ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NoSubstitutionTemplateLiteral, ts.SyntaxKind.TemplateHead, ts.SyntaxKind.TemplateMiddle, ts.SyntaxKind.TemplateTail];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.OpenBraceToken && substitutions.length) substitutions[substitutions.length - 1]++;
    if (kind === ts.SyntaxKind.CloseBraceToken && substitutions.length) {
      if (substitutions[substitutions.length - 1]-- === 0) kind = scanner.reScanTemplateToken(false);
    }
    if (kind === ts.SyntaxKind.TemplateHead) substitutions.push(0);
    if (kind === ts.SyntaxKind.TemplateMiddle) substitutions[substitutions.length - 1] = 0;
    if (kind === ts.SyntaxKind.TemplateTail) substitutions.pop();
    const token = scanner.getTokenText();
    if (kind === ts.SyntaxKind.Identifier && exact.has(token)) found.push(token);
    else if (TEMPLATE_TEXT.includes(kind) && exact.has(scanner.getTokenValue())) found.push(token);
    else if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      for (const name of distinctive) if (new RegExp(`\\b${name}\\b`).test(token)) found.push(`${name} (in a comment)`);
    }
  }
  return found;
}

/** Every function of every assignment the project declares: this one's (every part, on or off), and the self-tests' own (selftest/assignments/*). */
function declaredFunctions(): FunctionSpec[] {
  const others = fs.existsSync(path.join(PROJECT_ROOT, 'selftest', 'assignments'))
    ? fs.readdirSync(path.join(PROJECT_ROOT, 'selftest', 'assignments')).flatMap((name) => {
      const file = path.join(PROJECT_ROOT, 'selftest', 'assignments', name, 'adapters', 'functions.ts');
      return fs.existsSync(file) ? [file] : [];
    })
    : [];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return [...ALL_FUNCTIONS, ...others.flatMap((file) => (require(file) as { FUNCTIONS: FunctionSpec[] }).FUNCTIONS)];
}

const LIB = walk('lib', isProduct);

describe('lib/ is the harness: it never reaches into an assignment', () => {
  it('imports nothing from tests/, adapters/, reference/, student/ (or the self-tests and scripts above it)', () => {
    const reaching = LIB.flatMap((file) => importsOf(file).filter((target) => !target.startsWith('lib/')).map((target) => `${file} → ${target}`));
    expect(reaching).toEqual([]);
  });

  it('names no graded function of any declared assignment, in code or in a comment', () => {
    const names = [...new Set(declaredFunctions().flatMap((f) => [f.id, f.export]))];
    expect(names.length).toBeGreaterThan(0);
    const naming = LIB.flatMap((file) => namings(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8'), names).map((n) => `${file}: ${n}`));
    expect(naming).toEqual([]);
  });

  it('the checks see what they look for', () => {
    expect(namings("const f = 'causal_mask'; // calls causalMask, then softmax\nrun(softmax);", ['causal_mask', 'causalMask', 'softmax']))
      .toEqual(["'causal_mask'", 'causalMask (in a comment)', 'softmax']);
    expect(namings('// a softmax, in words', ['softmax'])).toEqual([]);
    // A word in a template's text is prose, as in a string; code in its substitutions is code.
    expect(namings('const a = `the ${x({ y: 1 })} attention ${`in ${z}`} and more`; /* attention */ attention(1);', ['attention'])).toEqual(['attention']);
    expect(namings('const a = `${attention}`; const b = `attention`;', ['attention'])).toEqual(['attention', '`attention`']);
    expect(importsOf('lib/grading/grade.ts').some((target) => target.startsWith('lib/sandbox/'))).toBe(true);
    expect(importsOf('tests/assignment.ts')).toContain('adapters/functions.ts');
    expect(ASSIGNMENT_FOLDERS.every((dir) => fs.existsSync(path.join(PROJECT_ROOT, dir)))).toBe(true);
  });
});

describe('the house has no loops and no climbs', () => {
  const everything = ['lib', 'tests', 'adapters', 'reference', 'student', 'scripts'].flatMap((dir) => walk(dir, isProduct));

  it('no module imports one that imports it back, directly or round a loop', () => {
    const graph = new Map(everything.map((file) => [file, importsOf(file)]));
    expect(cycles(graph)).toEqual([]);
  });

  it("each of lib's modules imports only its own layer and those below", () => {
    const climbs = LIB.flatMap((file) => importsOf(file).filter((target) => target.startsWith('lib/') && layerOf(target) > layerOf(file))
      .map((target) => `${file} (layer ${layerOf(file)}) → ${target} (layer ${layerOf(target)})`));
    expect(climbs).toEqual([]);
  });

  it('the cycle check finds a loop, and only a loop', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(cycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });
});

/**
 * What a module loads as it is loaded: its imports and re-exports that are not type-only, as
 * specifiers (relative ones resolved like importsOf). A `require()` or `import()` inside a function
 * loads later, when called, and is not counted.
 */
export function loadedAtStart(file: string, text = fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly = clause && (clause.isTypeOnly
        || (!clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0
          && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      const named = statement.exportClause && ts.isNamedExports(statement.exportClause) ? statement.exportClause.elements : undefined;
      if (!named || named.length === 0 || !named.every((e) => e.isTypeOnly)) specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return specifiers.flatMap((spec) => {
    if (!spec.startsWith('.')) return [spec];
    const resolved = importsOf(file, `import '${spec}';`);
    return resolved.length ? resolved : [];
  });
}

/** The chain of modules by which loading `entry` loads the package `pkg`, or undefined when it does not. */
export function chainTo(entry: string, pkg: string): string[] | undefined {
  const from = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift()!;
    for (const target of loadedAtStart(file)) {
      if (target === pkg || target.startsWith(`${pkg}/`)) {
        const chain = [target];
        for (let at: string | undefined = file; at; at = from.get(at)) chain.unshift(at);
        return chain;
      }
      if (target.startsWith('lib/') && !from.has(target)) {
        from.set(target, file);
        queue.push(target);
      }
    }
  }
  return undefined;
}

describe('a grading process loads TypeScript only where it uses it', () => {
  // TypeScript is about a second of CPU to load: the transpiling and checking processes use it, a
  // process that grades (in process under vitest, or a batch's) reads only what they made.
  it('loading the grader, a batch or the Gradescope entry does not load TypeScript', () => {
    for (const entry of ['lib/grading/grade.ts', 'lib/batch/gradeBatch.ts', 'lib/gradescope/autograde.ts']) expect(chainTo(entry, 'typescript'), entry).toBeUndefined();
  });

  it('the check sees a load through a re-export and a chain of modules, and not a type-only import or a require in a function', () => {
    expect(chainTo('lib/sandbox/transpile.ts', 'typescript')).toEqual(['lib/sandbox/transpile.ts', 'typescript']);
    expect(chainTo('lib/bench/nestingProbe.ts', 'typescript')?.[0]).toBe('lib/bench/nestingProbe.ts');
    expect(loadedAtStart('x.ts', "import type ts from 'typescript';\nimport { type A, type B } from 'typescript';\nexport type { C } from 'typescript';\nfunction f() { return require('typescript'); }"))
      .toEqual([]);
    expect(loadedAtStart('x.ts', "import { type A, b } from 'typescript';")).toEqual(['typescript']);
    expect(loadedAtStart('x.ts', "export { a } from 'typescript';")).toEqual(['typescript']);
  });
});
