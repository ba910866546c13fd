/**
 * A command as a promise, for the Node lines' installs and checks, which run side by side: its
 * output kept up to a cap, and killed past a time limit (a hang guard, not a speed check), which
 * its stderr then says.
 */
import { spawn } from 'node:child_process';

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 32 << 20;

export function runCollected(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; limitMs: number }): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env });
    const out: string[] = [];
    const err: string[] = [];
    let kept = 0;
    const keep = (into: string[]) => (chunk: Buffer) => {
      if ((kept += chunk.length) <= MAX_OUTPUT) into.push(chunk.toString('utf8'));
    };
    child.stdout.on('data', keep(out));
    child.stderr.on('data', keep(err));
    let failure = '';
    const timer = setTimeout(() => {
      failure = `\nkilled after ${options.limitMs / 1000} s`;
      child.kill('SIGKILL');
    }, options.limitMs);
    child.on('error', (e) => (failure += `\n${String(e)}`));
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout: out.join(''), stderr: `${err.join('')}${failure}` });
    });
  });
}
