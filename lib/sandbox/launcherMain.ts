/**
 * The launcher process (launcher.ts): starts each contained child for the grader and hands the
 * child's output pipes and channel back over the IPC channel, so that the grading process (a few
 * hundred MB with TypeScript loaded) is never the one that forks. It runs as plain JavaScript from
 * the child runtime's folder (build.ts), trusted like the grader: it runs only what the grader asks
 * for, and never reads a byte a child writes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { LauncherReply, LauncherRequest } from './launcherProtocol';

/** A pipe's libuv handle (pipe_wrap's Pipe), what Node's IPC passes as 'net.Native'. */
interface PipeHandle {
  readStop(): number;
  close(): void;
}

const children = new Map<number, ChildProcess>();

/**
 * Takes a pipe's handle out of the socket Node made for it. The socket began reading in its
 * constructor; stopping it in the same tick means the event loop never read from it (a read here
 * would be bytes the grader never sees: launcher.test.ts). Detached, nothing in the launcher can
 * start it again: Node resumes a child's pipes when the child exits (flushStdio), while a handle may
 * still wait its turn behind another's acknowledgement.
 */
function takeHandle(pipe: unknown): PipeHandle {
  const socket = pipe as { _handle: PipeHandle | null };
  const handle = socket._handle!;
  handle.readStop();
  socket._handle = null;
  return handle;
}

function reply(message: LauncherReply, handle?: PipeHandle): void {
  if (!process.connected) {
    handle?.close();
    return;
  }
  // Passed as a bare handle: once it is written (the descriptor is then in the message), the launcher closes its copy.
  if (handle) process.send!(message, handle as never, () => handle.close());
  else process.send!(message);
}

function start({ id, file, args, detached, cwd }: Extract<LauncherRequest, { type: 'spawn' }>): void {
  let child: ChildProcess;
  try {
    child = spawn(file, args, { env: {}, stdio: ['ignore', 'pipe', 'pipe', 'pipe'], detached, cwd });
  } catch (err) {
    reply({ type: 'error', id, message: (err as Error).message });
    return;
  }
  // No stdio at all when Node ran out of descriptors before making it (EMFILE): the 'error' below says so.
  const stdio = child.stdio ?? [];
  const handles = [stdio[1], stdio[2], stdio[3]].map((pipe) => (pipe ? takeHandle(pipe) : undefined));
  child.on('error', (err) => {
    children.delete(id);
    reply({ type: 'error', id, message: err.message });
  });
  if (child.pid === undefined) {
    // Not started: the 'error' above follows, and nobody needs the pipes.
    for (const handle of handles) handle?.close();
    return;
  }
  children.set(id, child);
  reply({ type: 'spawned', id, pid: child.pid });
  handles.forEach((handle, index) => reply({ type: 'stdio', id, fd: (index + 1) as 1 | 2 | 3 }, handle));
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

// Ctrl-C, a closed terminal or a `kill` of the process group reach the launcher with the grader:
// what stops is the grader's to decide (lib/batch/interrupt.ts), and the launcher goes when it goes.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) process.on(signal, () => undefined);

reply({ type: 'ready' });
