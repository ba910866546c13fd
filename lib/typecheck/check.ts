/**
 * Type errors of submissions, for an unscored note. A TypeScript program costs about a second to
 * set up and a submission a few milliseconds more, so submissions whose files cannot reach one
 * another's types share one program: every file a module (nothing declared globally), no
 * `declare global`, no augmentation of a module, no `/// <reference>` (which can add declarations
 * to the whole program). A submission with any of those gets a program of its own, so nothing it
 * declares reaches a classmate's notes. Each submission's files live in a virtual folder of their
 * own; imports resolve as the grader's child resolves them (lib/sandbox/transpile.ts), the harness
 * modules to the project's own files. The compiler reads nothing else from disk but lib/'s code and
 * TypeScript's and Node's declaration files: a `/// <reference path>` to any other file finds nothing.
 */
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../paths';
import { HARNESS_MODULES } from '../sandbox/protocol';
import { resolveImport } from '../sandbox/transpile';
import { codePlace } from '../text/place';

export interface CheckedSubmission {
  name: string;
  /** How messages name its folder (Submission.label): a note's place is `<label>/index.ts:40:26`. */
  label: string;
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

/** Errors a grader's note lists per submission at most; the rest are counted (`npm run typecheck` lists them all). */
const SHOWN = 20;

export function compilerOptions(): ts.CompilerOptions {
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

/** The files a submission's program holds: its own under a virtual folder, by full path. */
interface Placed {
  submission: CheckedSubmission;
  folder: string;
  /** Full path → the path relative to the submission, as imports resolve it. */
  owner: Map<string, string>;
  text: Map<string, string>;
}

function place(submission: CheckedSubmission, index: number): Placed {
  const folder = path.join(VIRTUAL, String(index));
  const owner = new Map<string, string>();
  const text = new Map<string, string>();
  for (const [file, code] of Object.entries(submission.files)) {
    if (!file.endsWith('.ts')) continue;
    const full = path.join(folder, file);
    owner.set(full, file);
    text.set(full, code);
  }
  return { submission, folder, owner, text };
}

/**
 * Whether a submission's files can share a program with others' without any of its declarations
 * reaching theirs: each file a module, and none that declares into the global scope or another
 * module or pulls in more declarations by a triple-slash reference. Parsing alone tells.
 */
function sourcesKeepToThemselves(sources: readonly ts.SourceFile[]): boolean {
  return sources.every((source) =>
    ts.isExternalModule(source)
    && !source.referencedFiles.length && !source.typeReferenceDirectives.length && !source.libReferenceDirectives.length
    && !source.statements.some((s) => ts.isModuleDeclaration(s) && ((s.flags & ts.NodeFlags.GlobalAugmentation) !== 0 || ts.isStringLiteral(s.name))));
}

export function keepsToItself(submission: CheckedSubmission): boolean {
  return sourcesKeepToThemselves(Object.entries(submission.files)
    .filter(([file]) => file.endsWith('.ts'))
    .map(([file, code]) => ts.createSourceFile(file, code, ts.ScriptTarget.Latest, false)));
}

/**
 * Files parsed once for every program of a run: the shared ones (lib/, TypeScript's and Node's
 * declarations) and the submissions' own (a program of one submission reuses what the first
 * program over all of them parsed).
 */
type Shared = Map<string, ts.SourceFile | undefined>;

export interface SnapshotSettings {
  optionsJson: string;
  readableJson: string;
  rootsJson: string;
}

interface TypeCheckSnapshot {
  ts: typeof ts;
  optionsJson: string;
  readableJson: string;
  files: Map<string, ts.SourceFile>;
}

/**
 * What the type check's snapshot is built for (snapshot.ts): these options, a compiler that reads
 * only what this one may, and the harness modules every program holds as roots (what they import
 * comes with them), so that a check parses only the submission's own files.
 */
export function snapshotSettings(options = compilerOptions()): SnapshotSettings {
  return { optionsJson: JSON.stringify(options), readableJson: JSON.stringify(READABLE), rootsJson: JSON.stringify(Object.keys(HARNESS_MODULES).map(harnessFile)) };
}

/**
 * The declaration files a process started from the type check's snapshot (snapshot.ts) holds
 * parsed and bound, each only if it may stand for what parsing it now would give: the snapshot's
 * TypeScript is the one this module runs, it was built under these very options and read only what
 * this module's compiler may read, and the file's text is the text on disk now. Empty in a process
 * not started from the snapshot.
 */
export function preparsedFiles(options: ts.CompilerOptions): Shared {
  const shared: Shared = new Map();
  const snapshot = (globalThis as { __attentionTypeCheckSnapshot?: TypeCheckSnapshot }).__attentionTypeCheckSnapshot;
  const settings = snapshotSettings(options);
  if (!snapshot || snapshot.ts !== ts || snapshot.optionsJson !== settings.optionsJson || snapshot.readableJson !== settings.readableJson) return shared;
  for (const [file, source] of snapshot.files) {
    let text: string | undefined;
    try {
      text = ts.sys.readFile(file);
    } catch {
      text = undefined;
    }
    if (text === source.text && readable(file)) shared.set(file, source);
  }
  return shared;
}

/**
 * One program over the placed submissions. Imports from a submission's file resolve within its
 * own folder or to the harness, so no submission's file can name another's.
 */
function programOf(placed: readonly Placed[], options: ts.CompilerOptions, shared: Shared, harness: readonly string[]): ts.Program {
  const byFile = new Map<string, Placed>();
  for (const p of placed) for (const file of p.owner.keys()) byFile.set(file, p);
  const host = ts.createCompilerHost(options);
  const own = (file: string) => byFile.get(file)?.text.get(file);
  const allowed = (file: string) => byFile.has(file) || readable(file);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (file) => byFile.has(file) || (allowed(file) && ts.sys.fileExists(file));
  host.readFile = (file) => own(file) ?? (allowed(file) ? ts.sys.readFile(file) : undefined);
  host.getSourceFile = (file, languageVersion, onError, shouldCreate) => {
    if (byFile.has(file) && !shared.has(file)) shared.set(file, ts.createSourceFile(file, own(file)!, languageVersion, true));
    if (!shared.has(file)) shared.set(file, allowed(file) ? getSourceFile(file, languageVersion, onError, shouldCreate) : undefined);
    return shared.get(file);
  };
  host.resolveModuleNames = (specifiers, containing) =>
    specifiers.map((specifier) => {
      const p = byFile.get(containing);
      if (!p) return ts.resolveModuleName(specifier, containing, options, host).resolvedModule;
      const resolved = resolveImport(p.submission.files, p.owner.get(containing)!, specifier);
      if (resolved.kind === 'harness') return { resolvedFileName: harnessFile(resolved.name), extension: ts.Extension.Ts };
      if (resolved.kind !== 'file' || !resolved.name.endsWith('.ts')) return undefined;
      return { resolvedFileName: path.join(p.folder, resolved.name), extension: ts.Extension.Ts };
    });
  const entries = placed.map((p) => path.join(p.folder, p.submission.entry)).filter((entry) => byFile.has(entry));
  return ts.createProgram({ rootNames: [...entries, ...harness], options, host });
}

/** Checks submissions one by one, each as soon as its program exists; `checking` is told before each starts. */
export interface Checker {
  /** Called before the shared program is set up (every file parsed and bound). */
  settingUp?: () => void;
  /** Called before a submission's check starts (its program's set-up included when it has one of its own). */
  checking?: (name: string) => void;
  /** Called with each submission's errors as soon as they are known. */
  checked: (name: string, errors: string[]) => void;
}

/**
 * Type errors by submission, each as `student/index.ts:40:26: error TSnnnn: message` (the place
 * named as every message names one, lib/text/place.ts), told one submission at a time (see
 * Checker). Submissions that keep to themselves share one program; every other has its own. The
 * files every program shares are parsed once and reused. `alone` gives every submission a program
 * of its own. `shown` caps the errors listed per submission.
 */
export function checkEach(submissions: readonly CheckedSubmission[], checker: Checker, alone = false, shown = SHOWN): void {
  const options = compilerOptions();
  const shared = preparsedFiles(options);
  const harness = Object.keys(HARNESS_MODULES).map(harnessFile);
  const placed = submissions.map(place);
  let together: Placed[] = [];
  let program: ts.Program | undefined;
  if (!alone && placed.length) {
    checker.settingUp?.();
    // Parsed once, all together: a first program (no checker yet) tells which submissions keep
    // to themselves; the usual batch is all of them, and this program is the one checked.
    const all = programOf(placed, options, shared, harness);
    together = placed.filter((p) => sourcesKeepToThemselves(all.getSourceFiles().filter((f) => p.owner.has(f.fileName))));
    program = together.length === placed.length ? all : together.length ? programOf(together, options, shared, harness) : undefined;
    // Binds every file now, so that what it costs is the set-up's and not the first submission's.
    program?.getTypeChecker();
  }
  for (const p of placed) {
    checker.checking?.(p.submission.name);
    const list = errorsOf(together.includes(p) ? program! : programOf([p], options, shared, harness), p);
    checker.checked(p.submission.name, list.length > shown ? [...list.slice(0, shown), `… and ${list.length - shown} more type errors`] : list);
  }
}

/** checkEach's answers as one map. */
export function typeErrors(submissions: readonly CheckedSubmission[], alone = false, shown = SHOWN): Map<string, string[]> {
  const errors = new Map<string, string[]>();
  checkEach(submissions, { checked: (name, list) => errors.set(name, list) }, alone, shown);
  return errors;
}

/** No machine path in a note: the submission's virtual folder is named as messages name it, the project's root as such. */
function withoutPaths(text: string, folder: string, label: string): string {
  return text.split(folder + path.sep).join(`${label}/`).split(PROJECT_ROOT + path.sep).join('<project>/').split(PROJECT_ROOT).join('<project>');
}

function errorsOf(program: ts.Program, { owner, folder, submission: { label } }: Placed): string[] {
  const found: string[] = [];
  // Only the submission's own files are checked: lib/ is the grader's, checked by `npm run
  // typecheck`, and its full check cost more than a hundred submissions' (types it exports are
  // still read, as the submissions use them).
  for (const file of program.getSourceFiles().filter((f) => owner.has(f.fileName))) {
    const where = (node: ts.Node) => {
      const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
      return codePlace(label, owner.get(file.fileName)!, line + 1, character + 1);
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
      const message = withoutPaths(ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '), folder, label);
      found.push(`${codePlace(label, owner.get(file.fileName)!, line + 1, character + 1)}: error TS${diagnostic.code}: ${message}`);
    }
  }
  return found;
}
