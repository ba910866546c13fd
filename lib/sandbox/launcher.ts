/**
 * Contained children started by a launcher process (launcherMain.ts) instead of the grading
 * process: forking copies the forking process's page tables, and the grader, with TypeScript and a
 * batch's fixtures loaded, is a few hundred MB where the launcher is a few dozen, so each start cost
 * the grader milliseconds of CPU per hundred MB, with its event loop stopped meanwhile
 * (docs/benchmarks.md). The launcher hands back the child's pid, output pipes and channel (file
 * descriptors passed over Node's IPC channel), and the grader talks to the child directly from then
 * on. What the grader gets behaves as the ChildProcess the session used (ContainedProcess).
 *
 * The launcher is the children's parent: their parent-death signal is tied to it, and it is tied
 * to the grader (its own parent-death signal, and it kills its children when the grader's channel
 * closes). A launcher that dies under a batch is the harness's failure: what its children were
 * running ends as a GraderError, regraded next run, never as a student's crash.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { GraderError } from '../errors';
import { buildChildRuntime } from './build';
import type { LauncherReply, LauncherRequest } from './launcherProtocol';
import { findTools } from './probeLayers';

/** What the session needs of a started child (a subset of ChildProcess). */
export interface ContainedProcess extends EventEmitter {
  readonly pid: number | undefined;
  readonly stdout: Duplex;
  readonly stderr: Duplex;
  /** 1 stdout, 2 stderr, 3 the channel. */
  readonly stdio: readonly [null, Duplex, Duplex, Duplex];
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  kill(signal?: NodeJS.Signals): boolean;
}

export interface LaunchOptions {
  detached: boolean;
  cwd?: string;
}

/**
 * A pipe of the child as the grader uses it from the start, though the launcher hands the real one
 * over a moment later: writes wait for it, and what it reads is passed on. A pipe that fails just
 * ends: the child's exit says what happened.
 */
class Relay extends Duplex {
  private real?: Socket;
  private queued: { chunk: Buffer; done: (err?: Error | null) => void }[] = [];

  attach(handle: unknown): void {
    if (!handle || this.destroyed) {
      if (handle) new Socket({ handle } as never).destroy();
      this.push(null);
      return;
    }
    const socket = new Socket({ handle, readable: true, writable: true } as never);
    this.real = socket;
    socket.on('data', (chunk: Buffer) => this.push(chunk));
    socket.on('end', () => this.push(null));
    socket.on('error', () => this.push(null));
    for (const { chunk, done } of this.queued.splice(0)) socket.write(chunk, done);
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    if (this.real) this.real.write(chunk, done);
    else this.queued.push({ chunk, done });
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.real?.destroy();
    done(err);
  }
}

class LaunchedChild extends EventEmitter implements ContainedProcess {
  pid: number | undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  readonly stdio: readonly [null, Relay, Relay, Relay] = [null, new Relay(), new Relay(), new Relay()];
  private ended = false;

  constructor(private readonly launcher: Launcher, readonly id: number) {
    super();
  }

  get stdout(): Relay {
    return this.stdio[1];
  }

  get stderr(): Relay {
    return this.stdio[2];
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.ended) return false;
    this.launcher.send({ type: 'kill', id: this.id, signal });
    return true;
  }

  receive(reply: LauncherReply, handle: unknown): void {
    if (reply.type === 'spawned') {
      this.pid = reply.pid;
      this.emit('spawn');
    }
    else if (reply.type === 'stdio') this.stdio[reply.fd].attach(handle);
    else if (reply.type === 'exit') this.end(reply.code, reply.signal);
    else if (reply.type === 'error') this.fail(new Error(reply.message));
  }

  end(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.ended) return;
    this.ended = true;
    [this.exitCode, this.signalCode] = [code, signal];
    this.emit('exit', code, signal);
  }

  /** Not started, or its launcher is gone: an 'error', as ChildProcess emits when a spawn fails. */
  fail(err: Error): void {
    if (this.ended) return;
    this.ended = true;
    for (const pipe of this.stdio.slice(1) as Relay[]) pipe.destroy();
    this.emit('error', err);
  }
}

/** The launcher's command: tied to the grader by a parent-death signal where setpriv can set one. */
function launcherCommand(): string[] {
  const setpriv = findTools().setpriv;
  // SIGUSR1 would open Node's inspector in the launcher, where a child that may signal it could reach it.
  const flags = process.allowedNodeEnvironmentFlags.has('--disable-sigusr1') ? ['--disable-sigusr1'] : [];
  const node = [process.execPath, ...flags, buildChildRuntime().launcher];
  return setpriv ? [setpriv, '--pdeathsig', 'SIGKILL', '--', ...node] : node;
}

class Launcher {
  private readonly process: ChildProcess;
  private readonly children = new Map<number, LaunchedChild>();
  private nextId = 1;
  gone = false;

  constructor() {
    const [file, ...args] = launcherCommand();
    this.process = spawn(file, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: {} });
    this.process.on('message', (reply: LauncherReply, handle: unknown) => {
      if (reply.type !== 'ready') this.children.get(reply.id)?.receive(reply, handle);
      if (reply.type === 'exit' || reply.type === 'error') this.forget(reply.id);
    });
    const lost = (how: string) => {
      if (this.gone) return;
      this.gone = true;
      // Its children died with it (each has a parent-death signal): no verdict on what they ran.
      const err = new GraderError(`the process that starts contained children ${how}: not graded, the next run grades it again`);
      const children = [...this.children.values()];
      this.children.clear();
      // Each told in a tick of its own: a child nobody listens to throws its 'error' (as a
      // ChildProcess does), and that must not keep the children after it from hearing theirs.
      for (const child of children) process.nextTick(() => child.fail(err));
    };
    this.process.on('exit', (code, signal) => lost(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    this.process.on('error', (err) => lost(`could not start (${err.message})`));
    this.idle();
  }

  start(file: string, args: readonly string[], options: LaunchOptions): ContainedProcess {
    const child = new LaunchedChild(this, this.nextId++);
    this.children.set(child.id, child);
    this.process.ref();
    this.process.channel?.ref();
    this.send({ type: 'spawn', id: child.id, file, args: [...args], detached: options.detached, cwd: options.cwd });
    return child;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  send(request: LauncherRequest): void {
    if (!this.gone && this.process.connected) this.process.send(request);
  }

  private forget(id: number): void {
    this.children.delete(id);
    if (this.children.size === 0) this.idle();
  }

  /** With no child running, the launcher does not keep the grader's event loop alive. */
  private idle(): void {
    this.process.unref();
    this.process.channel?.unref();
  }
}

let launcher: Launcher | undefined;

/** The launcher's pid while one runs: not a contained child, though a descendant of the grader like them. */
export function launcherPid(): number | undefined {
  return launcher && !launcher.gone ? launcher.pid : undefined;
}

/** Starts `file args` from the launcher (started on first use, and again if it died). */
export function launch(file: string, args: readonly string[], options: LaunchOptions): ContainedProcess {
  if (!launcher || launcher.gone) launcher = new Launcher();
  return launcher.start(file, args, options);
}
