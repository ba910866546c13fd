/**
 * Whether a submission can load, decided once for both paths: the grader (transpile.ts, before
 * TypeScript transpiles what is reached) and `npm test` (adapters/index.ts, before vite imports
 * it) read the folder with the same intake and check its imports with this code, so a folder that
 * one path would run and the other refuse (an import of a deleted file, of a file under another
 * case, of another harness module, a `require`) gets one verdict, in the same words, in both.
 * `npm test` then resolves every import of the folder with resolveImport too (vitest.config.mts),
 * so the two load the same files. It needs no TypeScript: the student loop cannot afford it.
 */
import path from 'node:path';
import { codeFile } from '../text/place';
import { scanModule } from './imports';
import { harnessModuleOf, HARNESS_MODULES } from './protocol';

export type Resolved = { kind: 'harness'; name: string } | { kind: 'file'; name: string } | { kind: 'missing' } | { kind: 'outside' };

/** The grader's one rule for an import: the harness's modules, or a file of the folder by its exact name. */
export function resolveImport(files: Readonly<Record<string, unknown>>, from: string, specifier: string): Resolved {
  const harness = harnessModuleOf(specifier);
  if (harness) return { kind: 'harness', name: harness };
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return { kind: 'outside' };
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  if (joined.startsWith('..')) return { kind: 'outside' };
  const bare = joined.replace(/\.(js|ts)$/, '');
  const found = [`${bare}.ts`, `${bare}.js`, `${bare}/index.ts`, `${bare}/index.js`].find((f) => Object.hasOwn(files, f));
  return found ? { kind: 'file', name: found } : { kind: 'missing' };
}

/** The harness's modules as student/index.ts imports them: `../lib/tensor or ../lib/errors`. */
const ALLOWED_HARNESS = Object.values(HARNESS_MODULES).map((module) => `../${module}`).join(' or ');

export interface CheckJob {
  /** Code files by posix path relative to the submission folder. */
  files: Record<string, string>;
  entry: string;
  label: string;
}

export interface LoadCheck {
  /** The files the entry reaches, entry first. */
  reached: string[];
  /** Path → import specifier → another path in `files`, or a harness module name (HARNESS_MODULES). */
  resolutions: Record<string, Record<string, string>>;
  /** Imports a submission may not use, one sentence each; when non-empty nothing is run. */
  refused: string[];
  /** Why it cannot load (a syntax error, an import that finds nothing…); when non-empty nothing is run. */
  loadErrors: string[];
  /** For the student: files of theirs that are not what their imports get. */
  notes: string[];
}

/** The files reachable from the entry, each scanned, every import resolved; `reading` is told each file before it is parsed. */
export function checkSubmission({ files, entry, label }: CheckJob, reading?: (file: string) => void): LoadCheck {
  const check: LoadCheck = { reached: [], resolutions: {}, refused: [], loadErrors: [], notes: [] };
  const queue = [entry];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (Object.hasOwn(check.resolutions, name)) continue;
    check.reached.push(name);
    check.resolutions[name] = {};
    reading?.(name);
    const scanned = scanModule(files[name], name, label);
    check.loadErrors.push(...scanned.problems);
    for (const { specifier, place } of scanned.imports) {
      const target = resolveImport(files, name, specifier);
      if (target.kind === 'outside') {
        check.refused.push(`${place} imports "${specifier}", which a submission may not use: import only files inside your folder, ${ALLOWED_HARNESS}`);
      } else if (target.kind === 'missing') {
        check.loadErrors.push(`${place} imports "${specifier}", which is not in your folder: ${missingFix(files, name, specifier)}`);
      } else {
        check.resolutions[name][specifier] = target.name;
        if (target.kind === 'file') queue.push(target.name);
        else shadowedHarnessFile(files, name, specifier, label, check.notes);
      }
    }
  }
  return check;
}

/** A file that differs from the import only in case (found on macOS and Windows, not by the grader) is named. */
function missingFix(files: Readonly<Record<string, unknown>>, from: string, specifier: string): string {
  const wanted = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)).replace(/\.(js|ts)$/, '').toLowerCase();
  const other = Object.keys(files).find((f) => [`${wanted}.ts`, `${wanted}.js`, `${wanted}/index.ts`, `${wanted}/index.js`].includes(f.toLowerCase()));
  return other ? `the folder has ${other}, whose name differs in case: names must match exactly` : 'add the file or fix the path';
}

/** A copy of the tensor module inside the submission is not what its import gets: say so once. */
function shadowedHarnessFile(files: Readonly<Record<string, unknown>>, from: string, specifier: string, label: string, notes: string[]): void {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier)).replace(/\.(js|ts)$/, '');
  const own = [`${joined}.ts`, `${joined}.js`].find((f) => Object.hasOwn(files, f));
  const note = `Ignored: ${codeFile(label, own ?? '')}: an import of lib/tensor or lib/errors gets the grader's module (${Object.values(HARNESS_MODULES).join(', ')}), as in npm test.`;
  if (own && !notes.includes(note)) notes.push(note);
}

/** The reason every test of a submission that failed to load gives, in both paths. */
export function failedToLoad(problem: string): string {
  return `the submission failed to load: ${problem}`;
}

/**
 * What every test says when the check stops the submission: `refused` (it imports what it may
 * not) or `error` (it cannot load); undefined when it may run.
 */
export function loadVerdict(check: Pick<LoadCheck, 'refused' | 'loadErrors'>): { status: 'refused' | 'error'; reason: string } | undefined {
  if (check.refused.length) return { status: 'refused', reason: check.refused[0] };
  if (check.loadErrors.length) return { status: 'error', reason: failedToLoad(check.loadErrors[0]) };
  return undefined;
}
