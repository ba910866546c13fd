/**
 * Type errors as an unscored note: one checking process for a whole batch (or one submission),
 * started beside the grading and awaited when the notes are written, under a time limit and a
 * memory cap. A check that fails or runs out of time leaves one note that says so.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import type { CheckedSubmission } from './check';

export type TypeNotes = (name: string) => Promise<string[]>;

const LIMIT_MS = 60_000;
const HEAP_MB = 1024;

function runCheck(submissions: readonly CheckedSubmission[], limitMs: number): Promise<Record<string, string[]> | string> {
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${HEAP_MB}`, '-r', require.resolve('ts-node/register/transpile-only'), path.join(__dirname, 'main.ts')],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  // Notes worth no points must not slow the grading beside them: the check gets the cores it leaves.
  try {
    if (child.pid !== undefined) os.setPriority(child.pid, 15);
  } catch {
    // not allowed here: it runs at the grader's priority
  }
  const out: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stdin.on('error', () => undefined);
  child.stdin.end(JSON.stringify(submissions));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(`the type check took longer than ${limitMs / 1000} s and was stopped`);
    }, limitMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return resolve(`the type check failed (exit code ${code})`);
      try {
        resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as Record<string, string[]>);
      } catch {
        resolve('the type check gave no readable answer');
      }
    });
  });
}

/** Starts checking now; each submission's note, when asked for, once the check is done. */
export function startTypeCheck(submissions: readonly CheckedSubmission[], limitMs = LIMIT_MS): TypeNotes {
  const running = submissions.length ? runCheck(submissions, limitMs) : Promise.resolve<Record<string, string[]>>({});
  return async (name) => {
    const errors = await running;
    if (typeof errors === 'string') return [`Type errors (no points): not checked, ${errors}.`];
    const own = errors[name] ?? [];
    return own.length ? [`Type errors (no points; \`npm run typecheck\` shows them):\n${own.join('\n')}`] : [];
  };
}
