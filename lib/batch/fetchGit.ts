/**
 * One git command of a fetch (fetch.ts), bounded: it runs in a process group of its own, killed
 * whole (git clone's transport, index-pack, upload-pack…) when the repository's time is up, when a
 * watch says its download has grown past what one repository may take, or when what it prints is
 * refused as it streams (a tree past the walk's budget). A student's repository decides how long
 * git runs and how much it writes; nothing here waits on it unbounded.
 */
import { spawn } from 'node:child_process';
import { nodeMs } from '../sandbox/nodeMs';

export interface GitOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** When the repository's time is up (ms since the epoch), and what the row says then. */
  until: number;
  overTime: string;
  /** Asked every WATCH_MS: a reason to stop git now, or undefined. */
  watch?: () => string | undefined;
  /** Takes the output as it comes instead of keeping it; what it throws stops git and is the run's failure. */
  onStdout?: (chunk: Buffer) => void;
  input?: Buffer;
}

export interface GitRun {
  ok: boolean;
  /** The output, trimmed, when onStdout did not take it (at most OUTPUT_BYTES). */
  out: string;
  /** Why it failed: git's own verdict, or why it was stopped. */
  err: string;
  /** What onStdout threw, when it stopped git. */
  failure?: Error;
}

const WATCH_MS = 200;
/** What a command whose output is kept may print: a commit id, a date. */
const OUTPUT_BYTES = 64 * 1024;

function firstError(text: string): string | undefined {
  const lines = text.trim().split('\n').map((line) => line.trim()).filter(Boolean);
  return lines.find((line) => /^(fatal|error):/.test(line)) ?? lines.at(-1);
}

export function runGit(args: readonly string[], options: GitOptions): Promise<GitRun> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let kept = 0;
    let stopped: string | undefined;
    let failure: Error | undefined;
    const stop = (why: string) => {
      if (stopped !== undefined) return;
      stopped = why;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => stop(options.overTime), nodeMs(options.until - Date.now()));
    const watcher = options.watch && setInterval(() => {
      const why = options.watch!();
      if (why) stop(why);
    }, WATCH_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped !== undefined) return;
      if (!options.onStdout) {
        if ((kept += chunk.length) <= OUTPUT_BYTES) out.push(chunk);
        return;
      }
      try {
        options.onStdout(chunk);
      } catch (e) {
        failure = e as Error;
        stop(failure.message);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.reduce((n, b) => n + b.length, 0) < OUTPUT_BYTES) err.push(chunk);
    });
    // git may stop reading its input early (a stopped run, a missing object): that is no error of ours.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? Buffer.alloc(0));
    const done = (code: number | null, spawnError?: Error) => {
      clearTimeout(timer);
      if (watcher) clearInterval(watcher);
      const ok = code === 0 && stopped === undefined && !spawnError;
      resolve({
        ok,
        out: Buffer.concat(out).toString('utf8').trim(),
        err: stopped ?? spawnError?.message ?? firstError(Buffer.concat(err).toString('utf8')) ?? `git exited ${code}`,
        ...(failure ? { failure } : {}),
      });
    };
    child.on('error', (e) => done(null, e));
    child.on('close', (code) => done(code));
  });
}
