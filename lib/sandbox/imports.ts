/**
 * What one file of a submission imports, and what in it neither loader can run the same way. Both
 * paths read a submission with this: the grader (transpile.ts), and `npm test` before vite imports
 * it (adapters/index.ts), so an import that one path would drop and the other refuse (an unused
 * import of a deleted file: TypeScript and vite elide it) is seen by both.
 *
 * It parses with oxc, through rolldown's parser (vite's own engine, already loaded by vitest): a
 * real parser, not a pattern over the text, and fast enough for the student loop, which
 * TypeScript's is not (loading it costs about a second).
 */
import { createRequire } from 'node:module';
import { codeFile, codePlace, lineAndColumn } from '../text/place';
import { nestingProblem } from '../text/nesting';
import type { parseAst as ParseAst } from 'rolldown/parseAst' with { 'resolution-mode': 'import' };

// An ES module, required (Node ≥ 20.19 and 22.12 load one from CommonJS): this project is CommonJS.
const { parseAst } = createRequire(__filename)('rolldown/parseAst') as { parseAst: typeof ParseAst };

export interface ImportSite {
  specifier: string;
  /** Where the import is written, as every message names a place (lib/text/place.ts). */
  place: string;
}

export interface ScannedModule {
  /** Every import written in the file, type-only and unused ones too: TypeScript elides those, the check does not. */
  imports: ImportSite[];
  /** Why the file cannot be loaded the same way by both paths, one sentence each, naming `<label>/<file>:<line>`. */
  problems: string[];
}

interface Node {
  type: string;
  start: number;
  [key: string]: unknown;
}

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';

/** Nodes that start a new function scope: an `await` inside one is not top-level. */
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'TSDeclareFunction']);

/** Where a specifier is written (its string literal), as TypeScript names an import's place. */
function startOf(node: unknown, fallback: number): number {
  return isNode(node) && typeof node.start === 'number' ? node.start : fallback;
}

function literal(node: unknown): string | undefined {
  return isNode(node) && node.type === 'Literal' && typeof node.value === 'string' ? node.value : undefined;
}

/** The parser's own sentence (its message is a header, the sentence, then a code frame) and its UTF-16 offset. */
function parseProblem(err: unknown): { message: string; offset?: number } {
  const e = err as { message?: unknown; pos?: unknown } | null;
  const text = typeof e?.message === 'string' ? e.message : String(err);
  const lines = text.split('\n');
  const message = (/^Parse failed with/.test(lines[0]) ? lines[1] : lines[0]) ?? text;
  return { message: message.trim(), offset: typeof e?.pos === 'number' ? e.pos : undefined };
}

/** Scans one TypeScript or JavaScript file; `file` is its path in the folder, `label` the folder's name in messages. */
export function scanModule(source: string, file: string, label: string): ScannedModule {
  const where = (offset: number) => {
    const { line, column } = lineAndColumn(source, offset);
    return codePlace(label, file, line, column);
  };
  // oxc recurses without a limit: past the bound it would overflow its stack (lib/text/nesting.ts).
  const deep = nestingProblem(source, label, file);
  if (deep) return { imports: [], problems: [deep] };
  let program: unknown;
  try {
    program = parseAst(source, { lang: file.endsWith('.js') ? 'js' : 'ts', sourceType: 'module', showSemanticErrors: true }, file);
  } catch (err) {
    const { message, offset } = parseProblem(err);
    return { imports: [], problems: [`syntax error at ${offset === undefined ? codeFile(label, file) : where(offset)}: ${message}`] };
  }
  const imports: ImportSite[] = [];
  const problems: string[] = [];
  const add = (specifier: string, at: number) => imports.push({ specifier, place: where(at) });
  // A stack of its own, not recursion: a tree as deep as the bound allows costs no call stack.
  const pending: { value: unknown; inFunction: boolean }[] = [{ value: program, inFunction: false }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, inFunction } = next;
    if (Array.isArray(value)) {
      for (let k = value.length - 1; k >= 0; k--) pending.push({ value: value[k], inFunction });
      continue;
    }
    if (!isNode(value)) continue;
    const node = value;
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportAllDeclaration':
      case 'ExportNamedDeclaration': {
        const from = literal(node.source);
        if (from !== undefined) add(from, startOf(node.source, node.start));
        break;
      }
      case 'TSImportEqualsDeclaration': {
        const reference = node.moduleReference as Node | undefined;
        const from = reference?.type === 'TSExternalModuleReference' ? literal(reference.expression) : undefined;
        if (from !== undefined) add(from, startOf(reference?.expression, node.start));
        break;
      }
      case 'TSImportType': {
        const from = literal(node.source) ?? literal((node.argument as Node | undefined)?.literal);
        if (from !== undefined) add(from, startOf(isNode(node.source) ? node.source : (node.argument as Node | undefined)?.literal, node.start));
        break;
      }
      case 'ImportExpression': {
        const from = literal(node.source);
        if (from !== undefined) add(from, startOf(node.source, node.start));
        else problems.push(`${where(node.start)} imports a path computed when it runs: write the path out, import './file'`);
        break;
      }
      case 'CallExpression': {
        const callee = node.callee as Node | undefined;
        if (callee?.type === 'Identifier' && callee.name === 'require') {
          // `require` is not defined where npm test runs the code (an ES module): both paths refuse it alike.
          problems.push(`${where(node.start)} calls require(): use import … from '…' instead (your code runs as an ES module under npm test)`);
          const argument = (node.arguments as unknown[] | undefined)?.[0];
          const from = literal(argument);
          if (from !== undefined) add(from, startOf(argument, node.start));
        }
        break;
      }
      case 'MetaProperty': {
        const meta = node.meta as Node | undefined;
        if (meta?.name === 'import') problems.push(`${where(node.start)} uses import.meta, which the grader cannot give your code: remove it`);
        break;
      }
      case 'AwaitExpression':
        if (!inFunction) problems.push(`${where(node.start)} uses await outside a function (top-level await), which the grader cannot run: move it into a function`);
        break;
      case 'ForOfStatement':
        if (node.await === true && !inFunction) problems.push(`${where(node.start)} uses for await outside a function (top-level await), which the grader cannot run: move it into a function`);
        break;
      default:
        break;
    }
    const nested = inFunction || FUNCTIONS.has(node.type);
    const keys = Object.keys(node).filter((key) => key !== 'type' && key !== 'start' && key !== 'end');
    for (let k = keys.length - 1; k >= 0; k--) pending.push({ value: node[keys[k]], inFunction: nested });
  }
  return { imports, problems };
}
