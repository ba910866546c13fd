/**
 * The launcher process (launcher.ts): starts each contained child for the grader and hands the
 * child's output pipes and channel back over the IPC channel, so that the grading process (a few
 * hundred MB with TypeScript loaded) is never the one that forks. Forking copies the forking
 * process's page tables, so a small process forks in a few milliseconds where the grader took tens
 * to a hundred, with its event loop stopped meanwhile. It runs as plain JavaScript from the child
 * runtime's folder (build.ts), trusted like the grader: it runs only what the grader asks for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { LauncherReply, LauncherRequest } from './launcherProtocol';

const children = new Map<number, ChildProcess>();

function reply(message: LauncherReply, handle?: Socket): void {
  process.send!(message, handle);
}

function start({ id, file, args, detached, cwd }: Extract<LauncherRequest, { type: 'spawn' }>): void {
  const child = spawn(file, args, { env: {}, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], detached, cwd });
  const pipes = [child.stdio[1], child.stdio[2], child.stdio[3]] as Socket[];
  // Nothing is read here: each pipe's reading began in its constructor and is stopped in the same
  // tick, before the event loop could read a byte, so every byte the child writes reaches the grader.
  for (const pipe of pipes) (pipe as unknown as { _handle?: { readStop(): void } })._handle?.readStop();
  children.set(id, child);
  child.on('error', (err) => {
    children.delete(id);
    reply({ type: 'error', id, message: err.message });
  });
  if (child.pid === undefined) return; // the 'error' above follows
  reply({ type: 'spawned', id, pid: child.pid });
  pipes.forEach((pipe, index) => reply({ type: 'stdio', id, fd: (index + 1) as 1 | 2 | 3 }, pipe));
  child.on('exit', (code, signal) => {
    children.delete(id);
    reply({ type: 'exit', id, code, signal });
  });
}

process.on('message', (message: LauncherRequest) => {
  if (message.type === 'spawn') start(message);
  else children.get(message.id)?.kill(message.signal);
});

// The grader is gone (it exited, or was killed): so is every child it started.
process.on('disconnect', () => {
  for (const child of children.values()) child.kill('SIGKILL');
  process.exit(0);
});

reply({ type: 'ready' });
