/**
 * Turns a submission's sources into what the child loads: every file its entry reaches, transpiled
 * to CommonJS (without type-checking: a type error costs no points), and every import resolved up
 * front against the files that were read. It runs in a worker thread with a time limit
 * (transpilePool.ts), never on the grader's event loop: a few hundred bytes of nested arrows can
 * keep TypeScript busy for minutes.
 *
 * A file that does not parse makes the whole submission a load failure, as it is for vitest. A
 * submission may import its own files and the tensor module; anything else is refused here, before
 * any of its code runs.
 */
import path from 'node:path';
import ts from 'typescript';
import { COMPILER_OPTIONS } from './build';
import { codeFile, codePlace } from '../text/place';
import { harnessModuleOf, HARNESS_MODULES, type LoadMessage } from './protocol';
import { decodeMappings, type LineMap } from './sourceMap';
import { boundFeedback, FEEDBACK_LIMITS } from '../text/bound';

export interface TranspileJob {
  /** Code files by posix path relative to the submission folder. */
  files: Record<string, string>;
  entry: string;
  label: string;
}

export interface PreparedSubmission {
  load: LoadMessage;
  /** Imports that are not allowed, one sentence each; when non-empty the submission is not run. */
  refused: string[];
  /** Why it cannot load (a syntax error, an import of a file that is not there); when non-empty it is not run. */
  loadErrors: string[];
  /** Per file, from transpiled positions back to the source's (for stack traces). */
  lineMaps: Record<string, LineMap>;
  /** For the student: files of theirs that the grader does not use. */
  notes: string[];
}

/** A PreparedSubmission as JSON gives it back (a cache's entry, lib/batch/workCache.ts). */
export function isPrepared(value: unknown): value is PreparedSubmission {
  const v = value as Partial<PreparedSubmission> | null;
  const record = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);
  const strings = (x: unknown) => Array.isArray(x) && x.every((s) => typeof s === 'string');
  return record(v) && record(v!.load) && v!.load!.type === 'load' && record(v!.load!.files) && record(v!.load!.resolutions)
    && Object.values(v!.load!.files).every((f) => typeof f === 'string') && typeof v!.load!.entry === 'string'
    && record(v!.lineMaps) && strings(v!.refused) && strings(v!.loadErrors) && strings(v!.notes);
}

export type Resolved = { kind: 'harness'; name: string } | { kind: 'file'; name: string } | { kind: 'missing' } | { kind: 'outside' };

export function resolveImport(files: Record<string, string>, from: string, specifier: string): Resolved {
  const harness = harnessModuleOf(specifier);
  if (harness) return { kind: 'harness', name: harness };
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return { kind: 'outside' };
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  if (joined.startsWith('..')) return { kind: 'outside' };
  const bare = joined.replace(/\.(js|ts)$/, '');
  const found = [`${bare}.ts`, `${bare}.js`, `${bare}/index.ts`, `${bare}/index.js`].find((f) => Object.hasOwn(files, f));
  return found ? { kind: 'file', name: found } : { kind: 'missing' };
}

/** The files reachable from the entry, transpiled, with their imports resolved. */
export function transpileSubmission({ files, entry, label }: TranspileJob): PreparedSubmission {
  const load: LoadMessage = { type: 'load', files: {}, resolutions: {}, entry, label, outputCap: 0 };
  const prepared: PreparedSubmission = { load, refused: [], loadErrors: [], lineMaps: {}, notes: [] };
  const queue = [entry];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (Object.hasOwn(load.files, name)) continue;
    const source = files[name];
    const output = ts.transpileModule(source, { compilerOptions: { ...COMPILER_OPTIONS, sourceMap: true }, fileName: name, reportDiagnostics: true });
    load.files[name] = output.outputText;
    prepared.lineMaps[name] = decodeMappings((JSON.parse(output.sourceMapText ?? '{}') as { mappings?: string }).mappings ?? '');
    // A place in the source as written, counted as TypeScript counts lines; parsed again only when a message needs one.
    let parsed: ts.SourceFile | undefined;
    const at = (position: number) => {
      const { line, character } = ts.getLineAndCharacterOfPosition(parsed ??= ts.createSourceFile(name, source, ts.ScriptTarget.Latest), position);
      return codePlace(label, name, line + 1, character + 1);
    };
    // A file of a million `)` is a million diagnostics: the first few say what is wrong.
    const diagnostics = output.diagnostics ?? [];
    for (const d of diagnostics.slice(0, FEEDBACK_LIMITS.perKind)) {
      prepared.loadErrors.push(`syntax error at ${at(d.start ?? 0)}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
    if (diagnostics.length > FEEDBACK_LIMITS.perKind) prepared.loadErrors.push(`… and ${diagnostics.length - FEEDBACK_LIMITS.perKind} more syntax errors in ${codeFile(label, name)}`);
    load.resolutions[name] = {};
    for (const { fileName: specifier, pos } of ts.preProcessFile(source, true, true).importedFiles) {
      const target = resolveImport(files, name, specifier);
      if (target.kind === 'outside') {
        prepared.refused.push(`${at(pos)} imports "${specifier}", which a submission may not use: import only files inside your folder and ../lib/tensor`);
      } else if (target.kind === 'missing') {
        prepared.loadErrors.push(`${at(pos)} imports "${specifier}", which is not in your folder: add the file or fix the path`);
      } else {
        load.resolutions[name][specifier] = target.name;
        if (target.kind === 'file') queue.push(target.name);
        else shadowedHarnessFile(files, name, specifier, label, prepared.notes);
      }
    }
  }
  // One note per import is as many notes as a file has imports: bounded like every result's notes.
  prepared.loadErrors = boundFeedback(prepared.loadErrors);
  prepared.refused = boundFeedback(prepared.refused);
  return prepared;
}

/** A copy of the tensor module inside the submission is not what its import gets: say so once. */
function shadowedHarnessFile(files: Record<string, string>, from: string, specifier: string, label: string, notes: string[]): void {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)).replace(/\.(js|ts)$/, '');
  const own = [`${joined}.ts`, `${joined}.js`].find((f) => Object.hasOwn(files, f));
  if (!own) return;
  const note = `Ignored: ${codeFile(label, own)}: an import of lib/tensor or lib/errors gets the grader's module (${Object.values(HARNESS_MODULES).join(', ')}), as in npm test.`;
  if (!notes.includes(note)) notes.push(note);
}
