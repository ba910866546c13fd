/**
 * The packages with native code the grader loads, each by the module through which it loads it.
 * Their native parts come as optional platform packages (rolldown's parser is
 * @rolldown/binding-linux-x64-gnu on Gradescope's x86-64 Ubuntu), so an install that leaves
 * optional dependencies out (`npm ci --omit=optional`) has the JavaScript but not the binary, and
 * then every submission fails at grading time. This list is the one place that says which:
 * the bundle refuses to build when its package.json does not list one (bundle.ts), setup.sh's check
 * loads each and stops the image build naming the one that fails (scripts/check-packages.ts), and
 * the self-test grades with every other native file of the install removed, so a package missing
 * here is found there.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { inspect } from 'node:util';
import { PROJECT_ROOT } from '../paths';

export interface NativePackage {
  /** The package as package.json lists it. */
  name: string;
  /** What the grader requires of it: loading it loads the native code. */
  module: string;
  /** Why the grader needs it, for the message when it cannot load. */
  usedFor: string;
}

export const NATIVE_PACKAGES: readonly NativePackage[] = [
  { name: 'rolldown', module: 'rolldown/parseAst', usedFor: "its parser checks each submission's imports (lib/sandbox/imports.ts)" },
];

export type NativeCheck =
  | { kind: 'loaded'; pkg: NativePackage; /** The native files it loaded, relative to the project. */ files: string[] }
  | { kind: 'failed'; pkg: NativePackage; /** One line: the error and its causes, as Node gave them. */ error: string };

// Node's own require, whoever loads this module (vitest's runner, scripts/runTs.js): its cache lists the native files loaded.
const nodeRequire = createRequire(__filename);
const loadedNativeFiles = (): string[] => Object.keys(nodeRequire.cache).filter((file) => file.endsWith('.node'));

/** The first line of an error's message and of each of its causes. */
function errorLine(err: unknown): string {
  const lines: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown })?.cause, depth++) {
    const message = e instanceof Error ? e.message : inspect(e);
    lines.push(message.split('\n')[0].slice(0, 300));
  }
  return lines.join(' <- ');
}

/** Loads every package of NATIVE_PACKAGES in this process, saying for each what it loaded or why it could not. */
export function checkNativePackages(packages: readonly NativePackage[] = NATIVE_PACKAGES): NativeCheck[] {
  return packages.map((pkg) => {
    const before = new Set(loadedNativeFiles());
    try {
      nodeRequire(pkg.module);
    } catch (err) {
      return { kind: 'failed', pkg, error: errorLine(err) };
    }
    const files = loadedNativeFiles().filter((file) => !before.has(file)).map((file) => path.relative(PROJECT_ROOT, file).split(path.sep).join('/'));
    return { kind: 'loaded', pkg, files };
  });
}
