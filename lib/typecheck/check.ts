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

/** Type errors by submission name, each as `file(line,col): error TSnnnn: message` with the file relative to the submission. */
export function typeErrors(submissions: readonly CheckedSubmission[]): Map<string, string[]> {
  const options = compilerOptions();
  const owner = new Map<string, { index: number; file: string }>();
  const text = new Map<string, string>();
  submissions.forEach((s, index) => {
    for (const [file, code] of Object.entries(s.files)) {
      if (!file.endsWith('.ts')) continue;
      const full = path.join(VIRTUAL, String(index), file);
      owner.set(full, { index, file });
      text.set(full, code);
    }
  });
  const harness = Object.keys(HARNESS_MODULES).map(harnessFile);
  const host = ts.createCompilerHost(options);
  const allowed = (file: string) => text.has(file) || readable(file);
  host.fileExists = (file) => text.has(file) || (allowed(file) && ts.sys.fileExists(file));
  host.readFile = (file) => text.get(file) ?? (allowed(file) ? ts.sys.readFile(file) : undefined);
  host.resolveModuleNames = (specifiers, containing) =>
    specifiers.map((specifier) => {
      const from = owner.get(containing);
      if (!from) return ts.resolveModuleName(specifier, containing, options, host).resolvedModule;
      const resolved = resolveImport(submissions[from.index].files, from.file, specifier);
      if (resolved.kind === 'harness') return { resolvedFileName: harnessFile(resolved.name), extension: ts.Extension.Ts };
      if (resolved.kind !== 'file' || !resolved.name.endsWith('.ts')) return undefined;
      return { resolvedFileName: path.join(VIRTUAL, String(from.index), resolved.name), extension: ts.Extension.Ts };
    });
  const entries = submissions.map((s, index) => path.join(VIRTUAL, String(index), s.entry)).filter((file) => text.has(file));
  const program = ts.createProgram({ rootNames: [...entries, ...harness], options, host });
  const errors = new Map<string, string[]>(submissions.map((s) => [s.name, []]));
  // Only the submissions' own files are checked: lib/ is the grader's, checked by `npm run
  // typecheck`, and its full check cost more than a hundred submissions' (types it exports are
  // still read, as the submissions use them).
  const diagnostics = program.getSourceFiles()
    .filter((file) => owner.has(file.fileName))
    .flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]);
  for (const diagnostic of diagnostics) {
    const from = diagnostic.file && owner.get(diagnostic.file.fileName);
    if (!from || diagnostic.category !== ts.DiagnosticCategory.Error) continue;
    const { line, character } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    errors.get(submissions[from.index].name)!.push(`${from.file}(${line + 1},${character + 1}): error TS${diagnostic.code}: ${message}`);
  }
  for (const [name, list] of errors) {
    if (list.length > SHOWN) errors.set(name, [...list.slice(0, SHOWN), `… and ${list.length - SHOWN} more type errors`]);
  }
  return errors;
}
