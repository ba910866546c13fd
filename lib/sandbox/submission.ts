/**
 * Reads a submission folder and prepares it for the child: every file its entry reaches, transpiled once
 * (without type-checking: a type error costs no points), and every import resolved up front. A
 * submission may import its own files and the tensor module; anything else is refused here,
 * before any of its code runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { COMPILER_OPTIONS } from './build';
import { HARNESS_MODULES, type LoadMessage } from './protocol';
import { decodeMappings, type LineMap } from './sourceMap';

export interface PreparedSubmission {
  load: LoadMessage;
  /** Imports that are not allowed, one sentence each; when non-empty the submission is not run. */
  refused: string[];
  /** Syntax errors: the code still runs as far as the transpiler could make sense of it. */
  syntaxErrors: string[];
  /** Per file, from transpiled positions back to the source's (for stack traces). */
  lineMaps: Record<string, LineMap>;
}

const CODE = /\.(ts|js)$/;
const MAX_FILES = 200;
const MAX_BYTES = 4 * 1024 * 1024;

/** Where an import points: a file of the submission, a harness module, or nowhere allowed. */
function resolveImport(root: string, from: string, specifier: string): string | undefined {
  const bare = specifier.replace(/\.(js|ts)$/, '');
  for (const [name, modulePath] of Object.entries(HARNESS_MODULES)) {
    if (bare === modulePath || bare.endsWith(`/${modulePath}`)) return name;
  }
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), bare));
  if (joined.startsWith('..')) return undefined;
  const candidates = [`${joined}.ts`, `${joined}.js`, `${joined}/index.ts`, `${joined}/index.js`];
  return candidates.find((f) => CODE.test(f) && fs.existsSync(path.join(root, f)) && fs.statSync(path.join(root, f)).isFile());
}

/** Transpiles the files reachable from `entry` by their imports; other files in the folder are ignored. */
export function prepareSubmission(root: string, entry: string, label: string): PreparedSubmission {
  const load: LoadMessage = { type: 'load', files: {}, resolutions: {}, entry, label, outputCap: 0 };
  const refused: string[] = [];
  const syntaxErrors: string[] = [];
  const lineMaps: Record<string, LineMap> = {};
  const queue = [entry];
  let bytes = 0;
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (name in load.files) continue;
    if (Object.keys(load.files).length >= MAX_FILES) throw new Error(`it imports more than ${MAX_FILES} files`);
    const source = fs.readFileSync(path.join(root, name), 'utf8');
    bytes += source.length;
    if (bytes > MAX_BYTES) throw new Error(`it imports more than ${MAX_BYTES / 1024 / 1024} MiB of code`);
    const output = ts.transpileModule(source, {
      compilerOptions: { ...COMPILER_OPTIONS, sourceMap: true },
      fileName: name,
      reportDiagnostics: true,
    });
    load.files[name] = output.outputText;
    lineMaps[name] = decodeMappings((JSON.parse(output.sourceMapText ?? '{}') as { mappings?: string }).mappings ?? '');
    for (const d of output.diagnostics ?? []) {
      const { line } = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: -1 };
      syntaxErrors.push(`${label}/${name}:${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
    load.resolutions[name] = {};
    for (const { fileName: specifier } of ts.preProcessFile(source, true, true).importedFiles) {
      const target = resolveImport(root, name, specifier);
      if (target === undefined) {
        refused.push(`${label}/${name} imports "${specifier}", which a submission may not use: import only files inside your folder and ../lib/tensor`);
        continue;
      }
      load.resolutions[name][specifier] = target;
      if (!(target in HARNESS_MODULES)) queue.push(target);
    }
  }
  return { load, refused, syntaxErrors, lineMaps };
}
