/**
 * Type errors of submissions, for an unscored note: one TypeScript program over many submissions
 * (a program costs about a second to set up, a submission a few milliseconds more). Each
 * submission's files live in a virtual folder of their own; imports resolve as the grader's child
 * resolves them (lib/sandbox/transpile.ts), the harness modules to the project's own files. The
 * compiler reads nothing else from disk but lib/'s code and TypeScript's and Node's declaration
 * files: a `/// <reference path>` to any other file finds nothing.
 */
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../paths';
import { HARNESS_MODULES } from '../sandbox/protocol';
import { resolveImport } from '../sandbox/transpile';

export interface CheckedSubmission {
  name: string;
  /** Code files by posix path relative to the submission's folder. */
  files: Record<string, string>;
  /**
   * The entry file (index.ts): only it and the files it imports are checked, the files the grader
   * loads. Others in the folder (a reference's instructor tooling, scratch files) are not the
   * submission's code and get no notes.
   */
  entry: string;
}

/** The rules `npm run typecheck` applies to student/ (student/tsconfig.json; a self-test holds the two together). */
export const STUDENT_RULES: ts.CompilerOptions = { noUnusedLocals: false };

/** Errors listed per submission at most; the rest are counted. */
const SHOWN = 20;

function compilerOptions(): ts.CompilerOptions {
  const file = path.join(PROJECT_ROOT, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(file, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!parsed) throw new Error(`${file}: cannot be read`);
  return { ...parsed.options, ...STUDENT_RULES, noEmit: true };
}

const VIRTUAL = path.join(PROJECT_ROOT, '.submissions-typecheck');
const harnessFile = (name: string) => path.join(PROJECT_ROOT, `${HARNESS_MODULES[name as keyof typeof HARNESS_MODULES]}.ts`);
const READABLE = [path.dirname(ts.getDefaultLibFilePath({})), path.join(PROJECT_ROOT, 'node_modules', '@types'), path.join(PROJECT_ROOT, 'lib')]
  .map((dir) => dir + path.sep);
const readable = (file: string) => /\.(d\.)?ts$/.test(file) && READABLE.some((dir) => path.resolve(file).startsWith(dir));

/**
 * Type errors by submission name, each as `file(line,col): error TSnnnn: message` with the file
 * relative to the submission. Each submission is checked in a program of its own, so that nothing
 * one declares (`declare global`, an augmentation of the tensor module) reaches another's notes;
 * the files every program shares (lib/ and TypeScript's and Node's declarations) are parsed once
 * and reused, which keeps a program per submission cheap.
 */
export function typeErrors(submissions: readonly CheckedSubmission[]): Map<string, string[]> {
  const options = compilerOptions();
  const shared = new Map<string, ts.SourceFile | undefined>();
  const harness = Object.keys(HARNESS_MODULES).map(harnessFile);
  const errors = new Map<string, string[]>();
  for (const [index, submission] of submissions.entries()) {
    const list = submissionErrors(submission, index, options, shared, harness);
    errors.set(submission.name, list.length > SHOWN ? [...list.slice(0, SHOWN), `… and ${list.length - SHOWN} more type errors`] : list);
  }
  return errors;
}

/** No machine path in a note: the submission's virtual folder goes, the project's root is named as such. */
function withoutPaths(text: string, folder: string): string {
  return text.split(folder + path.sep).join('').split(PROJECT_ROOT + path.sep).join('<project>/').split(PROJECT_ROOT).join('<project>');
}

function submissionErrors(
  submission: CheckedSubmission,
  index: number,
  options: ts.CompilerOptions,
  shared: Map<string, ts.SourceFile | undefined>,
  harness: readonly string[],
): string[] {
  const folder = path.join(VIRTUAL, String(index));
  const owner = new Map<string, string>();
  const text = new Map<string, string>();
  for (const [file, code] of Object.entries(submission.files)) {
    if (!file.endsWith('.ts')) continue;
    const full = path.join(folder, file);
    owner.set(full, file);
    text.set(full, code);
  }
  const host = ts.createCompilerHost(options);
  const allowed = (file: string) => text.has(file) || readable(file);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (file) => text.has(file) || (allowed(file) && ts.sys.fileExists(file));
  host.readFile = (file) => text.get(file) ?? (allowed(file) ? ts.sys.readFile(file) : undefined);
  host.getSourceFile = (file, languageVersion, onError, shouldCreate) => {
    if (text.has(file)) return ts.createSourceFile(file, text.get(file)!, languageVersion, true);
    if (!shared.has(file)) shared.set(file, allowed(file) ? getSourceFile(file, languageVersion, onError, shouldCreate) : undefined);
    return shared.get(file);
  };
  host.resolveModuleNames = (specifiers, containing) =>
    specifiers.map((specifier) => {
      const from = owner.get(containing);
      if (!from) return ts.resolveModuleName(specifier, containing, options, host).resolvedModule;
      const resolved = resolveImport(submission.files, from, specifier);
      if (resolved.kind === 'harness') return { resolvedFileName: harnessFile(resolved.name), extension: ts.Extension.Ts };
      if (resolved.kind !== 'file' || !resolved.name.endsWith('.ts')) return undefined;
      return { resolvedFileName: path.join(folder, resolved.name), extension: ts.Extension.Ts };
    });
  const entry = path.join(folder, submission.entry);
  const program = ts.createProgram({ rootNames: [...(text.has(entry) ? [entry] : []), ...harness], options, host });
  const found: string[] = [];
  // Only the submission's own files are checked: lib/ is the grader's, checked by `npm run
  // typecheck`, and its full check cost more than a hundred submissions' (types it exports are
  // still read, as the submissions use them).
  for (const file of program.getSourceFiles().filter((f) => owner.has(f.fileName))) {
    const where = (node: ts.Node) => {
      const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
      return `${owner.get(file.fileName)}(${line + 1},${character + 1})`;
    };
    // Changing the grader's own types or the globals is not the submission's to do: said, for it alone.
    for (const statement of file.statements) {
      if (!ts.isModuleDeclaration(statement)) continue;
      const global = (statement.flags & ts.NodeFlags.GlobalAugmentation) !== 0;
      if (global || ts.isStringLiteral(statement.name)) {
        const what = global ? 'the global scope' : `the module '${statement.name.text}'`;
        found.push(`${where(statement)}: note: this declaration changes the types of ${what}; declare your own types instead (it changes nothing for the grader)`);
      }
    }
    for (const diagnostic of [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]) {
      if (diagnostic.category !== ts.DiagnosticCategory.Error || diagnostic.file !== file) continue;
      const { line, character } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const message = withoutPaths(ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '), folder);
      found.push(`${owner.get(file.fileName)}(${line + 1},${character + 1}): error TS${diagnostic.code}: ${message}`);
    }
  }
  return found;
}
