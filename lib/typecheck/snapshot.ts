/**
 * A startup snapshot for the grader's checking processes (run.ts): Node's `--snapshot-blob` with
 * TypeScript loaded and the ES library's and Node's declaration files parsed and bound, and the
 * harness modules a submission imports (snapshotBuild.js). A checking process spent about 2.4 s of
 * CPU on a submission, most of it loading TypeScript and parsing those 2.8 MB of declarations, the
 * same in every process; started from the snapshot it spends about 0.7 s (docs/benchmarks.md).
 *
 * Correct by construction, not by naming: a parsed file is used only when its text is the text on
 * disk now and the compiler options are the check's own (check.ts, preparsedFiles), and only from
 * the very TypeScript module the check runs (snapshotPreload.js makes it `typescript`). The blob's
 * name only keeps a stale one from being used: it is named by the Node binary (a snapshot loads in
 * the Node that built it and no other), the project's folder, the builder, TypeScript, the
 * declaration packages, tsconfig.json and the harness's files it holds.
 *
 * The blob is built ahead (ensureTypeCheckSnapshot: `npm run selftest` builds it before its tests;
 * a grader never builds it on its own, so that no run pays for a build it cannot use) and kept in
 * node_modules/.cache/typecheck-snapshot/ (emptied by `npm ci`). Without one, or when a process
 * started from it fails before it says anything, checks run as before (run.ts).
 */
import { spawnSync } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths';
import { HARNESS_MODULES } from '../sandbox/protocol';
import type { SnapshotSettings } from './check';

const CACHE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'typecheck-snapshot');
export const SNAPSHOT_PRELOAD = path.join(__dirname, 'snapshotPreload.js');
const BUILDER = path.join(__dirname, 'snapshotBuild.js');

/** The blob's path for this Node, this project's folder, TypeScript, declaration packages and tsconfig.json (it may not exist). */
export function snapshotBlobPath(cache = CACHE): string {
  const hash = createHash('sha256').update(`${process.version}\0${process.arch}\0${process.execPath}\0${PROJECT_ROOT}\0`);
  try {
    const binary = fs.statSync(process.execPath);
    hash.update(`${binary.size}\0${binary.mtimeMs}\0`);
  } catch {
    // An execPath that cannot be read: the version names the binary.
  }
  try {
    hashFiles(hash, [BUILDER, ...compilerFiles(), ...harnessFiles()]);
  } catch {
    // A file gone (no declaration packages): a name no build matches, so the check runs without a snapshot.
    hash.update('missing\0');
  }
  return path.join(cache, `${blobPrefix()}${hash.digest('hex').slice(0, 16)}.blob`);
}

/** The files besides lib/ that decide what a type check says: tsconfig.json, TypeScript's and the declaration packages' versions. */
export function compilerFiles(): string[] {
  const modules = path.join(PROJECT_ROOT, 'node_modules');
  const files = [path.join(PROJECT_ROOT, 'tsconfig.json'), path.join(modules, 'typescript', 'package.json')];
  for (const pkg of fs.readdirSync(path.join(modules, '@types')).sort()) files.push(path.join(modules, '@types', pkg, 'package.json'));
  return files;
}

/**
 * The harness modules (lib/sandbox/protocol.ts) and the project files they import, which the
 * snapshot holds parsed: a blob built before one of them changed is replaced, not kept with a parse
 * that no check may use (check.ts uses a parsed file only when its text is the text on disk).
 */
export function harnessFiles(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) visit(path.join(path.dirname(file), `${specifier}.ts`));
  };
  for (const module of Object.values(HARNESS_MODULES)) visit(path.join(PROJECT_ROOT, `${module}.ts`));
  return [...seen].sort();
}
/** `from './shape'` and `import './x'`: a name for the blob, not a resolution (check.ts resolves). */
const RELATIVE_IMPORT = /(?:\bfrom|^import)\s*['"](\.{1,2}\/[^'"]+?)(?:\.ts)?['"]/gm;

/** Each file's project-relative name and bytes into `hash`. */
export function hashFiles(hash: Hash, files: readonly string[]): void {
  for (const file of files) hash.update(path.relative(PROJECT_ROOT, file)).update('\0').update(fs.readFileSync(file)).update('\0');
}

/**
 * What every blob of this Node and this project's folder is named with: the ones a new build
 * replaces. A node_modules linked into another folder (a handout tried beside the project) shares
 * the cache, and its blobs are not this folder's to remove.
 */
export function blobPrefix(): string {
  return `${process.version}-${createHash('sha256').update(PROJECT_ROOT).digest('hex').slice(0, 8)}-`;
}

/** The blob to start a checking process from, when there is one. */
export function usableSnapshot(): string | undefined {
  const blob = snapshotBlobPath();
  return fs.existsSync(blob) ? blob : undefined;
}

/**
 * Builds the blob for `settings` (check.ts's snapshotSettings: the compiler options and the folders
 * the compiler may read) unless it exists: a few seconds (5 s of wall time on a 2-core machine at
 * rest). Returns its path, or why there is none (the checks then run as before).
 */
export function ensureTypeCheckSnapshot(settings: SnapshotSettings, cache = CACHE): { blob: string; built: boolean } | { why: string } {
  const blob = snapshotBlobPath(cache);
  if (fs.existsSync(blob)) return { blob, built: false };
  const partial = `${blob}.${process.pid}.partial`;
  try {
    fs.mkdirSync(cache, { recursive: true });
    const built = spawnSync(process.execPath, ['--snapshot-blob', partial, '--build-snapshot', BUILDER], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      env: { ...process.env, ATTENTION_SNAPSHOT_TYPESCRIPT: require.resolve('typescript'), ATTENTION_SNAPSHOT_OPTIONS: settings.optionsJson, ATTENTION_SNAPSHOT_READABLE: settings.readableJson, ATTENTION_SNAPSHOT_ROOTS: settings.rootsJson },
      timeout: 120_000,
    });
    if (built.status !== 0 || !fs.existsSync(partial)) {
      return { why: `building it failed (${built.error?.message ?? built.signal ?? `exit code ${built.status}`}): ${(built.stderr ?? '').trim().split('\n').slice(-1)[0] ?? ''}` };
    }
    // Whole or not at all: a process that starts from it never sees half a blob.
    fs.renameSync(partial, blob);
    // Blobs this Node built here before (another TypeScript, other declarations): about 45 MB each, never used again.
    for (const old of fs.readdirSync(cache)) {
      if (old.startsWith(blobPrefix()) && old.endsWith('.blob') && path.join(cache, old) !== blob) fs.rmSync(path.join(cache, old), { force: true });
    }
    return { blob, built: true };
  } catch (err) {
    return { why: `it cannot be written in ${path.relative(PROJECT_ROOT, cache)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  } finally {
    fs.rmSync(partial, { force: true });
  }
}
