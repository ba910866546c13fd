/**
 * Turns a submission's sources into what the child loads: every file its entry reaches, transpiled
 * to CommonJS (without type-checking: a type error costs no points), and every import resolved up
 * front against the files that were read. It runs in a child process with a time limit
 * (transpilePool.ts), never in the grading process: a few hundred bytes of nested arrows can keep
 * TypeScript busy for minutes, and a parser that overflows its stack ends the process it runs in.
 *
 * A file that does not parse makes the whole submission a load failure, as it is for vitest. A
 * submission may import its own files and the tensor module; anything else is refused here, before
 * any of its code runs.
 */
import ts from 'typescript';
import { COMPILER_OPTIONS } from './build';
import { codeFile, codePlace } from '../text/place';
import { checkSubmission } from './loadCheck';
import type { PreparedSubmission, TranspileJob } from './prepared';
import { decodeMappings } from './sourceMap';
import { boundFeedback, FEEDBACK_LIMITS } from '../text/bound';

export { resolveImport, type Resolved } from './loadCheck';

export { isPrepared, type PreparedSubmission, type TranspileJob } from './prepared';

/**
 * The files the entry reaches, transpiled, with their imports resolved. Whether it can load at all
 * is checkSubmission's to say (loadCheck.ts), as it is for `npm test`; TypeScript adds the syntax
 * errors only it finds.
 */
export function transpileSubmission({ files, entry, label }: TranspileJob, reading?: (file: string, step: 'check' | 'transpile') => void): PreparedSubmission {
  const check = checkSubmission({ files, entry, label }, reading && ((file) => reading(file, 'check')));
  const load: PreparedSubmission['load'] = { type: 'load', files: {}, resolutions: check.resolutions, entry, label, outputCap: 0 };
  const prepared: PreparedSubmission = { load, refused: check.refused, loadErrors: check.loadErrors, lineMaps: {}, notes: check.notes };
  if (check.refused.length || check.loadErrors.length) return bounded(prepared);
  for (const name of check.reached) {
    const source = files[name];
    reading?.(name, 'transpile');
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
  }
  return bounded(prepared);
}

/** One note per import is as many notes as a file has imports: bounded like every result's notes. */
function bounded(prepared: PreparedSubmission): PreparedSubmission {
  return { ...prepared, loadErrors: boundFeedback(prepared.loadErrors), refused: boundFeedback(prepared.refused) };
}
