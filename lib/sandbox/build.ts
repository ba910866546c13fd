/**
 * The child runs plain JavaScript (a TypeScript loader would add to every child start), so the parent
 * transpiles the child's entry and the harness modules it reaches into a cache folder inside
 * node_modules (so `require('seedrandom')` still resolves), keyed by a hash of their sources. The
 * transpiling worker (transpileWorker.ts) and the launcher (launcherMain.ts) run from the same
 * folder, for the same reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import type ts from 'typescript';
import { writeFileAtomic } from '../fsAtomic';
import { sha256 } from '../model/manifest';
import { PROJECT_ROOT } from '../paths';

const CHILD_ENTRY = 'lib/sandbox/childMain.ts';
const WORKER_ENTRY = 'lib/sandbox/transpileWorker.ts';
const LAUNCHER_ENTRY = 'lib/sandbox/launcherMain.ts';

/**
 * TypeScript's enums by value (ts.ModuleKind.CommonJS, ts.ScriptTarget.ES2022; build.test.ts holds
 * them to the enums): a process that reuses a built runtime then never loads TypeScript.
 */
export const COMPILER_OPTIONS: ts.CompilerOptions = {
  module: 1 satisfies ts.ModuleKind.CommonJS,
  target: 9 satisfies ts.ScriptTarget.ES2022,
  esModuleInterop: true,
};

/** TypeScript, loaded only when the runtime is built (or the closure found again). */
const typescript = (): typeof ts => require('typescript') as typeof ts;

/** Project-relative .ts files reachable from the entries through relative imports. */
function closure(entries: readonly string[]): string[] {
  const ts = typescript();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
    for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      visit(path.posix.join(path.posix.dirname(file), `${fileName}.ts`));
    }
  };
  entries.forEach(visit);
  return [...seen].sort();
}

/** TypeScript's version, from its package.json (what `ts.version` says) without loading it. */
function typescriptVersion(): string {
  return (JSON.parse(fs.readFileSync(require.resolve('typescript/package.json'), 'utf8')) as { version: string }).version;
}

/** The version of rolldown, whose parser checks every submission's imports (imports.ts). */
function parserVersion(): string {
  return (JSON.parse(fs.readFileSync(require.resolve('rolldown/package.json'), 'utf8')) as { version: string }).version;
}

export interface ChildRuntime {
  /** The folder holding the transpiled runtime: the only project files the child may read. */
  root: string;
  entry: string;
  /** The transpiling worker's script. */
  transpiler: string;
  /** The launcher process's script (launcher.ts). */
  launcher: string;
}

let built: ChildRuntime | undefined;

/** Builds (or reuses) the child runtime; once per process. */
export function buildChildRuntime(): ChildRuntime {
  return (built ??= build());
}

const CACHE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'attention-grader');
/**
 * The files the last build found reachable from the entries. Finding them takes TypeScript's
 * parser; the runtime's name is a hash of every one of them (name and text), so when a runtime of
 * that name exists, these files with these texts are exactly what a new search would find (what a
 * file imports is in its text), and the runtime is used as it is.
 */
const CLOSURE_FILE = path.join(CACHE, 'closure.json');

function lastClosure(): string[] | undefined {
  try {
    const files = JSON.parse(fs.readFileSync(CLOSURE_FILE, 'utf8')) as unknown;
    return Array.isArray(files) && files.every((f) => typeof f === 'string' && /^lib\/[\w/.-]+\.ts$/.test(f)) ? files : undefined;
  } catch {
    return undefined;
  }
}

function runtimeOf(files: readonly string[]): { runtime: ChildRuntime; sources: (readonly [string, string])[] } | undefined {
  let sources: (readonly [string, string])[];
  try {
    sources = files.map((file) => [file, fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')] as const);
  } catch {
    return undefined; // a file of the last closure is gone: search again
  }
  // The parser's version too: what it refuses decides a cached transpile (lib/workCache.ts).
  const hash = sha256(sources.map(([file, text]) => `${file}\n${text}`).join('\0') + typescriptVersion() + parserVersion()).slice(0, 16);
  const root = path.join(CACHE, hash);
  const js = (file: string) => path.join(root, file.replace(/\.ts$/, '.js'));
  return { runtime: { root, entry: js(CHILD_ENTRY), transpiler: js(WORKER_ENTRY), launcher: js(LAUNCHER_ENTRY) }, sources };
}

function build(): ChildRuntime {
  const last = lastClosure();
  const reused = last && runtimeOf(last);
  if (reused && fs.existsSync(reused.runtime.entry)) return reused.runtime;
  const files = closure([CHILD_ENTRY, WORKER_ENTRY, LAUNCHER_ENTRY]);
  const { runtime, sources } = runtimeOf(files)!;
  const { root } = runtime;
  if (!fs.existsSync(runtime.entry)) {
    const ts = typescript();
    const staging = `${root}.${process.pid}.tmp`;
    for (const [file, text] of sources) {
      const target = path.join(staging, file.replace(/\.ts$/, '.js'));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, ts.transpileModule(text, { compilerOptions: COMPILER_OPTIONS, fileName: file }).outputText);
    }
    // Node looks for the nearest package.json of every module it loads: this one ends each search here.
    fs.writeFileSync(path.join(staging, 'package.json'), '{ "type": "commonjs" }\n');
    try {
      fs.renameSync(staging, root);
    } catch {
      // Another grader built the same hash first: use theirs.
      fs.rmSync(staging, { recursive: true, force: true });
    }
  }
  try {
    writeFileAtomic(CLOSURE_FILE, JSON.stringify(files));
  } catch {
    // A read-only node_modules: the next process searches again.
  }
  return runtime;
}
