/**
 * The child runs plain JavaScript (ts-node would add ~400 ms to every child start), so the parent
 * transpiles the child's entry and the harness modules it reaches into a cache folder inside
 * node_modules (so `require('seedrandom')` still resolves), keyed by a hash of their sources. The
 * transpiling worker (transpileWorker.ts) and the launcher (launcherMain.ts) run from the same
 * folder, for the same reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { sha256 } from '../model/manifest';
import { PROJECT_ROOT } from '../paths';

const CHILD_ENTRY = 'lib/sandbox/childMain.ts';
const WORKER_ENTRY = 'lib/sandbox/transpileWorker.ts';
const LAUNCHER_ENTRY = 'lib/sandbox/launcherMain.ts';

export const COMPILER_OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
};

/** Project-relative .ts files reachable from the entries through relative imports. */
function closure(entries: readonly string[]): string[] {
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

function build(): ChildRuntime {
  const files = closure([CHILD_ENTRY, WORKER_ENTRY, LAUNCHER_ENTRY]);
  const sources = files.map((file) => [file, fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')] as const);
  // The parser's version too: what it refuses decides a cached transpile (lib/workCache.ts).
  const hash = sha256(sources.map(([file, text]) => `${file}\n${text}`).join('\0') + ts.version + parserVersion()).slice(0, 16);
  const root = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'attention-grader', hash);
  const js = (file: string) => path.join(root, file.replace(/\.ts$/, '.js'));
  const runtime = { root, entry: js(CHILD_ENTRY), transpiler: js(WORKER_ENTRY), launcher: js(LAUNCHER_ENTRY) };
  if (fs.existsSync(runtime.entry)) return runtime;
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
  return runtime;
}
