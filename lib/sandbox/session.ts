/**
 * One child process running one submission, reused across cases until it misbehaves. A case that
 * hangs is killed at its time limit; a child that dies mid-case is reported as crashed; either way
 * the next case gets a fresh child. Nothing here awards points.
 *
 * Everything the child sends is hostile: frames are decoded under a size cap (frames.ts), each
 * message is validated (validate.ts) and must answer the request that is pending, by its id, on
 * the channel of the child that is running now. Anything else kills the child, and the case says why.
 */
import { randomInt } from 'node:crypto';
import type { Socket } from 'node:net';
import { GraderError } from '../errors';
import { CallClock, processTree } from './childClock';
import { DIED_AT_CAP, OUT_OF_MEMORY } from './outOfMemory';
import { expectedShapes, type CaseInputs } from '../assignment/call';
import { partsOfCall, specOf, type FunctionSpec } from '../assignment/functions';
import { judgedByShape } from '../assignment/returns';
import { launchCommand, type ChildCommand } from './containment';
import { launch, type ContainedProcess } from './launcher';
import { encodeFrame, FrameDecoder, ProtocolError } from './frames';
import type { ChildMessage, ErrorInfo, InputChange, LoadMessage, ParentMessage, WireReturn, WireValue } from './protocol';
import { jsonBounds, MESSAGE_LIMITS, readChildMessage } from './validate';
import { oneLine } from '../text/sanitise';
import { nodeMs } from './nodeMs';
import { busyTimer } from './busyClock';

export interface SessionOptions {
  /** The contained command that starts a child (lib/sandbox/containment.ts). */
  child: ChildCommand;
  /** The graded functions: how each is called and what it returns, sent to every child with the submission. */
  functions: readonly FunctionSpec[];
  timeoutMs: number;
  /** Characters of captured output kept per case; the rest is counted, not stored. */
  outputCap: number;
}

/**
 * What the call did besides its answer: the inputs it changed in place (each with the first index
 * that changed: a note for no points, a premise of the diagnosis), and whether it printed a flood
 * (printed.ts).
 */
export interface CallSideEffects {
  changed: InputChange[];
  flooded: boolean;
}

export type CallOutcome =
  /** What it returned, each part's values or its shape alone when that is not the promised shape and is larger (protocol.ts WireShape). */
  | ({ kind: 'value'; value: Array<{ name: string; value: WireValue }>; output: string } & CallSideEffects)
  /** `unreadable`: it returned something that is not a tensor; the message says what. */
  | ({ kind: 'threw'; error: ErrorInfo; output: string; unreadable: boolean } & CallSideEffects)
  /** `budget`: not run, or cut short, because its function's share of the time budget ran out (faults.ts). */
  | { kind: 'timeout'; budget?: boolean; flooded?: boolean }
  | { kind: 'crashed'; how: string }
  /** The child broke the channel's rules (what it sent, or how much): the grader stopped it. */
  | { kind: 'refused'; how: string }
  | { kind: 'load_failed'; error: ErrorInfo };

/** A call's outcome; `duringLoad` when it came while loading the submission, before the case ran. */
export type SessionOutcome = CallOutcome & { duringLoad?: boolean };

export { OUT_OF_MEMORY } from './outOfMemory';

/** Each function's share of the time budget, as the grader keeps it (lib/grading/faults.ts FunctionLedger). */
export interface TimeShares {
  left(fn: string): number;
  charge(fn: string, ms: number): void;
}

/** How long a child may take to start its runtime, before any student code: longer is the machine's problem. */
const START_LIMIT_MS = 30_000;
/**
 * A call whose child was charged less than its limit after this many limits of wall time spent it
 * waiting for a CPU (childClock.ts), not computing or sleeping: the machine, not the student.
 */
const STARVED_FACTOR = 30;
/** Messages that answer nothing, tolerated per child before it counts as flooding the channel. */
const STRAY_LIMIT = 16;
/** Printed bytes read and dropped per child before the child counts as flooding its output. */
const DRAIN_LIMIT = 64 * 1024 ** 2;

/** How a load that succeeded settles: start() reads any other outcome as the load's failure. */
const LOADED: CallOutcome = { kind: 'value', value: [], output: '', changed: [], flooded: false };

/** Output capture with a cap: what is kept, and how many bytes were dropped. */
class Capture {
  private parts: Buffer[] = [];
  private kept = 0;
  dropped = 0;
  constructor(private readonly cap: number) {}
  add(chunk: Buffer): void {
    const room = Math.max(0, this.cap - this.kept);
    if (room > 0) this.parts.push(chunk.subarray(0, room));
    this.kept += Math.min(room, chunk.length);
    this.dropped += Math.max(0, chunk.length - room);
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

/** A started child and what the session knows of it. */
interface Running {
  process: ContainedProcess;
  channel: Socket;
  ready: Promise<void>;
  /** The child's processes (a wrapper and Node), read once its runtime is ready: what its calls are charged from. */
  pids: number[];
  strays: number;
  drained: number;
}

interface Pending {
  id: number;
  settle: (outcome: CallOutcome) => void;
  /** Ends the call with no verdict: the harness failed, not the submission. */
  fail: (err: GraderError) => void;
  timer?: NodeJS.Timeout;
  /** A case's: its function's spec, the shapes promised for its inputs, their names, and its params. */
  spec?: FunctionSpec;
  expect?: (number[] | null)[];
  inputs?: readonly string[];
  params?: Readonly<Record<string, number>>;
  /** The child said the call printed a flood. */
  flooded?: boolean;
}

/**
 * Request ids are drawn at random, not counted: a child that could guess the next id could queue
 * answers for cases it has not been asked yet, and one that arrives after the request is sent
 * would be taken as its answer (a race the stale-id attack won under load).
 */
function requestId(): number {
  return randomInt(1, 2 ** 47);
}

/**
 * Why an answer's parts are not what the call returns (their names, in the spec's order, less those
 * the call's `params` leave out), or a part came as a shape alone where its values must come;
 * undefined when they are.
 */
function wrongParts(spec: FunctionSpec, value: WireReturn, expect: readonly (number[] | null)[], params: Readonly<Record<string, number>>): string | undefined {
  const names = partsOfCall(spec, params).map((p) => p.name);
  if (value.length !== names.length || value.some((part, i) => part.name !== names[i])) return `sent the grader tensors named other than ${spec.export} returns`;
  if (value.some((part, i) => !('data' in part) && !judgedByShape(part.shape, expect[i] ?? undefined))) {
    return 'sent the grader a shape without its values, for a shape whose values it must send';
  }
  return undefined;
}

/** Every child started and not yet exited, of every session: what a grader that must stop kills. */
const LIVE = new Set<ContainedProcess>();

/** Kills every child still running (the batch's last guard, lib/batch/gradeBatch.ts). */
export function killEveryChild(): void {
  for (const child of LIVE) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export class ChildSession {
  private running?: Running;
  private pending?: Pending;
  private loaded?: Promise<CallOutcome | undefined>;
  private readonly capture: Capture;
  private load?: Omit<LoadMessage, 'functions'>;
  /**
   * Each graded function's share of the submission's time budget, in the time its calls are
   * charged (childClock.ts: the child's own CPU time, not the machine's load); no call runs past
   * its function's share. Without one, only the per-call limit applies.
   */
  ledger?: TimeShares;
  /**
   * The function whose call ended the last child (a hang, a crash): the next child's load is
   * charged to it, since the restart is its doing. Undefined for a child the grader chose to start.
   */
  private blame?: string;

  constructor(private readonly options: SessionOptions) {
    this.capture = new Capture(options.outputCap);
  }

  /** The graded functions this session's children run. */
  get functions(): readonly FunctionSpec[] {
    return this.options.functions;
  }

  /**
   * Starts a child before the submission is ready, so that Node's start-up overlaps with the
   * parent's transpiling instead of following it.
   */
  warmUp(): void {
    this.running ??= this.spawn();
  }

  /** Resolves once a child's runtime has started; rejects with a GraderError when none can (a preflight check). */
  async started(): Promise<void> {
    this.warmUp();
    await this.running!.ready;
  }

  /**
   * A session of its own for the same submission, its calls charged to the same ledger: its
   * children are new, and no call of this session's reaches them (nor theirs this one's).
   */
  sibling(): ChildSession {
    const other = new ChildSession(this.options);
    other.load = this.load;
    other.ledger = this.ledger;
    return other;
  }

  /**
   * The next call loads the submission again, in the child that runs (or a new one, when none
   * does): a new instance of every one of its modules, which no call has reached, as npm test's
   * instance for probes is. What earlier calls left in the child's realm (its globals) stays, as it
   * does under npm test. Starting a child costs more than the rest of most diagnoses.
   */
  freshInstance(): void {
    this.blame = undefined;
    this.loaded = undefined;
  }

  /** The transpiled submission every child of this session loads. */
  setSubmission(load: Omit<LoadMessage, 'functions'>): void {
    this.load = load;
  }

  /** What the submission printed since the last call. */
  takeOutput(): string {
    return this.capture.take();
  }

  private spawn(): Running {
    const launched = launchCommand(this.options.child);
    // Started by the launcher process, with an empty environment: nothing of the grader's (CI tokens, paths) is the student's business.
    const child = launch(launched.file, launched.args, { detached: this.options.child.ownSession ?? false, cwd: this.options.child.cwd });
    LIVE.add(child);
    child.on('exit', () => LIVE.delete(child));
    child.on('error', () => LIVE.delete(child));
    // The child's uid (when it has one of its own) goes back to the pool once the child is gone.
    child.on('exit', launched.release);
    child.on('error', launched.release);
    const channel = child.stdio[3] as Socket;
    let started: () => void = () => {};
    let failed: (err: Error) => void = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    ready.catch(() => {}); // awaited in start(); a child killed before then leaves it unobserved
    const running: Running = { process: child, channel, ready, pids: child.pid ? [child.pid] : [], strays: 0, drained: 0 };
    // Charged as the machine's load allows (busyClock.ts): a start is the machine's work, not the student's.
    const startTimer = busyTimer(START_LIMIT_MS, () => {
      failed(new GraderError(`a contained child did not start within ${START_LIMIT_MS / 1000} s of its share of the machine (the machine is overloaded?)`));
    });
    const current = () => this.running === running;
    const onOutput = (chunk: Buffer) => {
      if (!current()) return;
      this.capture.add(chunk);
      running.drained += chunk.length;
      if (running.drained > DRAIN_LIMIT) this.violation(`flooded its output: it printed more than ${DRAIN_LIMIT / 1024 ** 2} MiB around the grader's capture`);
    };
    child.stdout!.on('data', onOutput);
    child.stderr!.on('data', onOutput);
    const decoder = new FrameDecoder(MESSAGE_LIMITS.frameBytes, jsonBounds(this.options.outputCap));
    let isReady = false;
    const onChunk = (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = decoder.push(chunk);
      } catch (err) {
        if (!(err instanceof ProtocolError)) throw err;
        this.violation(`wrote ${err.message} to the grader's channel`);
        return;
      }
      for (const raw of messages) {
        if (!current()) return;
        const message = readChildMessage(raw, this.options.outputCap);
        if ('problem' in message) this.violation(`sent the grader ${message.problem}`);
        else if (message.type !== 'ready') this.receive(running, message);
        else if (isReady) this.stray(running);
        else {
          isReady = true;
          startTimer.clear();
          // The tree is fixed from here on: the child can start no process of its own.
          if (child.pid) running.pids = processTree(child.pid);
          started();
        }
      }
    };
    channel.on('data', (chunk: Buffer) => {
      if (!current()) return; // a child we replaced: nothing it says is read
      // Fail closed for this child alone: whatever its bytes make this code throw ends it and the
      // case it was running, never the grading process and the classmates graded beside it.
      try {
        onChunk(chunk);
      } catch (err) {
        if (!current()) return;
        let why = 'an error';
        try {
          why = oneLine(String((err as Error).message)).slice(0, 200);
        } catch {
          // an error without a readable message: 'an error' says enough
        }
        this.violation(`sent the grader something it could not handle (${why})`);
      }
    });
    channel.on('error', () => undefined); // the exit that follows reports it
    child.on('error', (err) => {
      failed(new GraderError(`could not start a contained child: ${err.message}`));
      // After it started, an 'error' is its launcher's loss (launcher.ts): the call it was running gets no verdict.
      if (current()) this.abandon(err instanceof GraderError ? err : new GraderError(err.message));
    });
    child.on('exit', (code, signal) => {
      startTimer.clear();
      // The grader is done with this child. A process of its tree that outlived it (one killed while
      // starting can slip its parent-death signal) still holds the channel's other end: closing
      // ours gives it EOF, on which the runtime exits, and frees the grader's loop, which an open
      // channel would hold for ever.
      channel.destroy();
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      // Before the runtime said ready no student code had run: the grader's own start-up failed.
      // Node's own report of a start that failed ends in its stack and version: its error line says what happened.
      const said = this.capture.peek().split('\n').map((line) => line.trim()).filter(Boolean);
      const before = (said.find((line) => /^(\w*Error|Error \[\w+\]):/.test(line)) ?? said.slice(-3).join(' ')).slice(0, 400);
      failed(new GraderError(`a contained child ${how} before its runtime started${before ? `: ${before}` : ''}`));
      if (!current()) return;
      this.running = undefined;
      this.loaded = undefined;
      const memory = OUT_OF_MEMORY.test(this.capture.peek()) || signal === 'SIGSEGV' || signal === 'SIGABRT';
      this.settle({ kind: 'crashed', how: memory ? `${how}${DIED_AT_CAP}` : how });
    });
    return running;
  }

  /** The child broke the protocol: it is killed, and the pending call ends with what it did. */
  private violation(what: string): void {
    this.kill();
    this.settle({ kind: 'refused', how: what });
  }

  /** A message nobody asked for ('ready' again included): tolerated a few times, then flooding. */
  private stray(running: Running): void {
    if (++running.strays > STRAY_LIMIT) this.violation(`sent the grader more than ${STRAY_LIMIT} messages it did not ask for`);
  }

  private receive(running: Running, message: Exclude<ChildMessage, { type: 'ready' }>): void {
    if (!this.pending || this.pending.id !== message.id) {
      this.stray(running);
      return;
    }
    const pending = this.pending;
    if (message.type === 'loaded') this.settle(LOADED);
    else if (message.type === 'load_failed') this.settle({ kind: 'load_failed', error: message.error });
    else if (message.type === 'flood') {
      if (pending.flooded) this.stray(running);
      pending.flooded = true;
    } else {
      // Only the names of the case's own inputs: anything else is not ours to repeat.
      const effects = { changed: message.changed.filter(({ name }) => pending.inputs?.includes(name)), flooded: pending.flooded ?? false };
      if (!message.ok) this.settle({ kind: 'threw', error: message.error, output: message.output, unreadable: message.unreadable, ...effects });
      else {
        const problem = pending.spec && wrongParts(pending.spec, message.value, pending.expect ?? [], pending.params ?? {});
        if (problem) this.violation(problem);
        else this.settle({ kind: 'value', value: message.value.map(({ name, ...value }) => ({ name, value })), output: message.output, ...effects });
      }
    }
  }

  private settle(outcome: CallOutcome): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    if (pending.timer) clearTimeout(pending.timer);
    pending.settle(outcome);
  }

  /** Ends the pending call, if any, with no verdict (the harness failed, not the submission), and the child with it. */
  private abandon(err: GraderError): void {
    const pending = this.pending;
    this.pending = undefined;
    if (pending?.timer) clearTimeout(pending.timer);
    this.kill();
    pending?.fail(err);
  }

  /**
   * Sends a message and waits for its answer, up to the case limit or what is left of its
   * function's share of the budget, whichever ends first, both in the time the call is charged
   * (childClock.ts). `fn`: the function charged; none for a load the grader chose to start.
   */
  private request(message: ParentMessage, fn?: string, inputs?: CaseInputs): Promise<CallOutcome> {
    const share = fn && this.ledger && message.type === 'case' ? this.ledger.left(fn) : Infinity;
    if (share <= 0) return Promise.resolve({ kind: 'timeout', budget: true });
    const budget = share < this.options.timeoutMs;
    const limit = Math.min(share, this.options.timeoutMs);
    const clock = new CallClock(this.running?.pids ?? []);
    return new Promise<CallOutcome>((resolve, reject) => {
      const pending: Pending = {
        id: message.id,
        settle: (outcome) => {
          if (fn) this.ledger?.charge(fn, clock.charged());
          resolve(outcome);
        },
        fail: reject,
        ...(message.type === 'case' && { spec: specOf(this.options.functions, message.fn), expect: message.expect, inputs: Object.keys(inputs?.inputs ?? {}), params: inputs?.params ?? {} }),
      };
      const check = () => {
        if (this.pending !== pending) return;
        const spent = clock.charged();
        // Against the per-test limit, not what is left of the budget: a call near the budget's end is no more suspect.
        if (spent < limit && clock.wall() >= STARVED_FACTOR * this.options.timeoutMs) {
          // Neither spinning nor sleeping: the child waited for a CPU all along. The grader cannot
          // time it fairly on this machine, so it grades no verdict: a grader failure, regraded next run.
          this.abandon(new GraderError(`the machine was too loaded to time a call: its process waited ${Math.round(clock.wall() / 1000)} s, mostly for a CPU, and was charged ${Math.round(spent)} ms; grade it again on a machine less busy`));
          return;
        }
        if (spent < limit) {
          pending.timer = setTimeout(check, nodeMs(Math.max(limit - spent, 20)));
          return;
        }
        // Timers run before I/O in Node's loop: after a stall of the grader, the answer may be
        // waiting unread. It is read first; only a call still unanswered after that timed out.
        setImmediate(() => {
          if (this.pending !== pending) return;
          this.settle({ kind: 'timeout', budget, flooded: pending.flooded ?? false });
          this.kill();
        });
      };
      pending.timer = setTimeout(check, nodeMs(limit));
      this.pending = pending;
      this.running?.channel.write(encodeFrame(message));
    });
  }

  private async start(): Promise<CallOutcome | undefined> {
    if (!this.load) throw new Error('ChildSession: setSubmission() before call()');
    this.warmUp();
    await this.running!.ready; // a GraderError here is the harness's failure, not the student's
    const blamed = this.blame;
    this.blame = undefined;
    const outcome = await this.request({ ...this.load, outputCap: this.options.outputCap, functions: [...this.options.functions], id: requestId() }, blamed);
    return outcome === LOADED ? undefined : outcome;
  }

  /**
   * Runs one case. The child is started (and the submission loaded) on first use and again after
   * a timeout or crash; a failure while loading is returned as the case's outcome. Rejects with a
   * GraderError when a child cannot start at all.
   */
  async call(fn: string, inputs: CaseInputs): Promise<SessionOutcome> {
    if (this.ledger && this.ledger.left(fn) <= 0) return { kind: 'timeout', budget: true };
    this.loaded ??= this.start();
    const loadProblem = await this.loaded;
    if (loadProblem) {
      this.kill();
      return { ...loadProblem, duringLoad: true };
    }
    // The shape the contract promises goes with the inputs: the child sends the values of no larger answer (childMain.ts).
    const expect = expectedShapes(specOf(this.options.functions, fn), inputs).map((shape) => shape ?? null);
    const outcome = await this.request({ type: 'case', id: requestId(), fn, inputs, expect }, fn, inputs);
    // A call that ended its child (a hang, a crash, a refused message) pays for the next child's load.
    if (!this.running) this.blame = fn;
    return outcome;
  }

  kill(): void {
    this.blame = undefined;
    const running = this.running;
    this.running = undefined;
    this.loaded = undefined;
    if (!running) return;
    running.channel.destroy();
    running.process.stdout?.destroy();
    running.process.stderr?.destroy();
    if (running.process.exitCode === null && running.process.signalCode === null) running.process.kill('SIGKILL');
  }
}
