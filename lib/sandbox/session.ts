/**
 * One child process running one submission, reused across cases until it misbehaves. A case that
 * hangs is killed at the timeout; a child that dies mid-case is reported as crashed; either way the
 * next case gets a fresh child. Nothing here awards points.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { CaseInputs } from '../grading/invoke';
import type { ChildCommand } from './containment';
import type { GradedFunction } from '../../tests/cases';
import type { ChildMessage, ErrorInfo, LoadMessage, ParentMessage } from './protocol';

export interface SessionOptions {
  /** The contained command that starts a child (lib/sandbox/containment.ts). */
  child: ChildCommand;
  timeoutMs: number;
  /** Characters of captured output kept per case; the rest is counted, not stored. */
  outputCap: number;
}

export type CallOutcome =
  | { kind: 'value'; value: unknown; output: string }
  | { kind: 'threw'; error: ErrorInfo; output: string }
  | { kind: 'timeout' }
  | { kind: 'crashed'; how: string }
  | { kind: 'load_failed'; error: ErrorInfo };

/** A call's outcome; `duringLoad` when it came while loading the submission, before the case ran. */
export type SessionOutcome = CallOutcome & { duringLoad?: boolean };

/** What V8 prints when the heap or an ArrayBuffer cannot grow under the cap. */
export const OUT_OF_MEMORY = /out of memory|allocation failed/i;

interface Pending {
  settle: (outcome: CallOutcome) => void;
  timer: NodeJS.Timeout;
}

/** Output capture with a cap: what is kept, and how many bytes were dropped. */
class Capture {
  private parts: Buffer[] = [];
  private kept = 0;
  private dropped = 0;
  constructor(private readonly cap: number) {}
  add(chunk: Buffer): void {
    const room = this.cap - this.kept;
    if (room > 0) this.parts.push(chunk.subarray(0, room));
    this.kept += Math.min(room > 0 ? room : 0, chunk.length);
    this.dropped += Math.max(0, chunk.length - Math.max(room, 0));
  }
  peek(): string {
    return Buffer.concat(this.parts).toString('utf8');
  }
  take(): string {
    const text = Buffer.concat(this.parts).toString('utf8');
    const note = this.dropped ? `\n… ${this.dropped} more bytes of output not shown` : '';
    this.parts = [];
    this.kept = 0;
    this.dropped = 0;
    return text + note;
  }
}

export class ChildSession {
  private child?: ChildProcess;
  private pending?: Pending;
  private loaded?: Promise<CallOutcome | undefined>;
  private nextId = 0;
  private readonly capture: Capture;

  private load?: LoadMessage;

  constructor(private readonly options: SessionOptions) {
    this.capture = new Capture(options.outputCap);
  }

  /**
   * Starts a child before the submission is ready, so that Node's start-up overlaps with the
   * parent's transpiling instead of following it.
   */
  warmUp(): void {
    if (!this.child) this.spawn();
  }

  /** The transpiled submission every child of this session loads. */
  setSubmission(load: LoadMessage): void {
    this.load = load;
  }

  /** What the submission printed since the last call. */
  takeOutput(): string {
    return this.capture.take();
  }

  private spawn(): void {
    const child = spawn(this.options.child.file, this.options.child.args, {
      // Nothing of the grader's environment (CI tokens, paths) is the student's business.
      env: {},
      serialization: 'advanced',
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child = child;
    child.stdout!.on('data', (chunk: Buffer) => this.capture.add(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.capture.add(chunk));
    child.on('message', (message: ChildMessage) => this.receive(message));
    child.on('exit', (code, signal) => {
      if (this.child !== child) return; // a child we killed on purpose
      this.child = undefined;
      this.loaded = undefined;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const memory = OUT_OF_MEMORY.test(this.capture.peek()) || signal === 'SIGSEGV' || signal === 'SIGABRT';
      this.settle({ kind: 'crashed', how: memory ? `${how}: memory limit exceeded` : how });
    });
    child.on('error', () => undefined); // exit follows and reports it
  }

  private start(): Promise<CallOutcome | undefined> {
    if (!this.load) throw new Error('ChildSession: setSubmission() before call()');
    this.warmUp();
    const load = { ...this.load, outputCap: this.options.outputCap };
    return this.request(() => this.send(load)).then((outcome) => (outcome.kind === 'value' ? undefined : outcome));
  }

  private send(message: ParentMessage): void {
    this.child?.send(message, (err) => {
      if (err) this.settle({ kind: 'crashed', how: `stopped answering (${err.message})` });
    });
  }

  private receive(message: ChildMessage): void {
    if (message.type === 'loaded') this.settle({ kind: 'value', value: undefined, output: '' });
    else if (message.type === 'load_failed') this.settle({ kind: 'load_failed', error: message.error });
    else if (message.type === 'result') {
      const { output } = message;
      this.settle(message.ok ? { kind: 'value', value: message.value, output } : { kind: 'threw', error: message.error, output });
    }
  }

  private settle(outcome: CallOutcome): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    pending.settle(outcome);
  }

  private request(begin: () => void): Promise<CallOutcome> {
    return new Promise<CallOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.settle({ kind: 'timeout' });
        this.kill();
      }, this.options.timeoutMs);
      this.pending = { settle: resolve, timer };
      begin();
    });
  }

  /**
   * Runs one case. The child is started (and the submission loaded) on first use and again after
   * a timeout or crash; a failure while loading is returned as the case's outcome.
   */
  async call(fn: GradedFunction, inputs: CaseInputs): Promise<SessionOutcome> {
    this.loaded ??= this.start();
    const loadProblem = await this.loaded;
    if (loadProblem) {
      this.kill();
      return { ...loadProblem, duringLoad: true };
    }
    const id = this.nextId++;
    return this.request(() => this.send({ type: 'case', id, fn, inputs }));
  }

  kill(): void {
    const child = this.child;
    this.child = undefined;
    this.loaded = undefined;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
