/**
 * The submission when it runs in this process (the vitest suite, the self-tests): each call made
 * as the grader's child makes it (lib/sandbox/childMain.ts answer), on its own copy of the inputs,
 * with what it prints captured under the same cap (lib/sandbox/printed.ts), under the per-test
 * limit or what is left of its function's share of the budget (faults.ts) and the memory cap on
 * typed arrays (bufferCap.ts), its answer read with the shapes the contract promises; and the
 * diagnosis's context, whose probes call it directly.
 */
import path from 'node:path';
import { HangError, withinLimit } from './withinLimit';
import { expectedShapes, invoke, type CaseInputs } from '../assignment/call';
import { fixturesDir, type Assignment } from './assignment';
import { specOf, type FunctionSpec } from '../assignment/functions';
import { notExported, readReturn, type Returned } from '../assignment/returns';
import type { ProbeContext, Probe } from '../diagnosis/probe';
import { ResultError } from '../errors';
import { ThreadClock, WALL_FACTOR } from '../sandbox/childClock';
import { DEFAULT_MEMORY_BYTES } from '../sandbox/outOfMemory';
import { withinBufferCap } from './bufferCap';
import { PrintCapture, redirectConsole } from '../sandbox/printed';
import { describeError, isA } from '../sandbox/errorInfo';
import type { ErrorInfo, InputChange } from '../sandbox/protocol';
import type { SessionOutcome } from '../sandbox/session';
import type { Backend } from './engine';
import { judgeValue } from './verdict';
import { trapExit } from './exitTrap';
import type { FunctionLedger } from './faults';
import { loadFixture } from '../model/fixtures';
import { PER_TEST_LIMIT_MS } from './hangWords';
import { changedInputs, copyInputs } from '../model/invoke';

/** Characters of printed output kept per call: the grader's default (scripts/grade.ts). */
export const OUTPUT_CAP = 4096;

/** What one call did, as the grader's child reports it (lib/sandbox/session.ts CallOutcome). */
export type InProcessOutcome =
  | { kind: 'value'; value: Returned; output: string; changed: InputChange[]; flooded: boolean }
  /**
   * `error`: what it threw, or the ResultError that says why its return is unreadable (`unreadable`),
   * described under the call's limit as the grader's child describes it (errorInfo.ts). Never the
   * thrown value itself: its getters are student code, and read later no limit would hold.
   */
  | { kind: 'threw'; error: ErrorInfo; unreadable: boolean; output: string; changed: InputChange[]; flooded: boolean }
  /** `budget`: its function's share of the budget ran out, rather than the per-test limit. */
  | { kind: 'timeout'; budget: boolean; output: string; flooded: boolean }
  /** It called process.exit (exitTrap.ts): the grader's child would have died, `how` as the grader says it ("exited with code 3"). */
  | { kind: 'crashed'; how: string; output: string; flooded: boolean };

/** Runs `call` with everything student code prints going to `capture`, console and process streams alike. */
function capturing<T>(capture: PrintCapture, call: () => T): T {
  const restoreConsole = redirectConsole(console, capture);
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((stream) => stream.write);
  for (const stream of streams) {
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      capture.print(() => (typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk)));
      (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof stream.write;
  }
  try {
    return call();
  } finally {
    streams.forEach((stream, i) => (stream.write = writes[i]));
    restoreConsole();
  }
}

export interface InProcessOptions {
  /** Each function's share of the budget and its faults; without one only the per-test limit applies. */
  ledger?: FunctionLedger;
  timeoutMs?: number;
  outputCap?: number;
  /** The grader's cap, held on the typed arrays the call makes (bufferCap.ts). */
  memoryBytes?: number;
}

/** The submission's functions called in this process, one call at a time, as the grader's child calls them. */
export class InProcessSession {
  readonly ledger?: FunctionLedger;
  readonly memoryBytes: number;
  private readonly timeoutMs: number;
  private readonly outputCap: number;

  /** `file` names the entry in messages (e.g. student/index.ts). */
  constructor(
    private readonly impl: object,
    private readonly functions: readonly FunctionSpec[],
    private readonly file: string,
    { ledger, timeoutMs = PER_TEST_LIMIT_MS, outputCap = OUTPUT_CAP, memoryBytes = DEFAULT_MEMORY_BYTES }: InProcessOptions = {},
  ) {
    this.ledger = ledger;
    this.timeoutMs = timeoutMs;
    this.outputCap = outputCap;
    this.memoryBytes = memoryBytes;
  }

  /**
   * One call as the child answers one request (lib/sandbox/childMain.ts answer): the call and the
   * reading of its return, which may run student code (getters), under one limit and charged to its
   * function as one, as the grader times the whole request. One limit also means one V8 watchdog
   * per call: each costs a thread (about 0.2 ms of CPU), and the diagnosis's probes make thousands.
   * The call is charged what the grader charges its child (childClock.ts): CPU time, not the wall
   * time a loaded machine stretches. Its watchdog, node:vm's, knows only the wall clock: it stops a
   * call at the per-test limit of wall time, and, near the end of its function's share, at
   * WALL_FACTOR times what is left of the share (what the grader allows a call that sleeps); the
   * charge then says whether the share ran out, as the grader's would have.
   */
  call(fn: string, inputs: CaseInputs): InProcessOutcome {
    const share = this.ledger ? this.ledger.left(fn) : Infinity;
    if (share <= 0) return { kind: 'timeout', budget: true, output: '', flooded: false };
    const shareEnds = share < this.timeoutMs;
    const watchdog = Math.min(this.timeoutMs, share * WALL_FACTOR);
    const capture = new PrintCapture(this.outputCap);
    const clock = this.ledger && new ThreadClock();
    const exported = specOf(this.functions, fn).export;
    let charged = 0;
    const exit = trapExit();
    try {
      // The cap outside node:vm's run: a run its watchdog stops skips the finally blocks inside it.
      const outcome = withinBufferCap(this.memoryBytes, () => capturing(capture, () => withinLimit(exported, () => this.answer(fn, inputs, capture), watchdog)));
      charged = clock?.charged() ?? 0;
      // Whatever the code did after process.exit (it may catch what the trap threw), the child was gone.
      if (exit.exited) return { kind: 'crashed', how: exit.exited, output: outcome.output, flooded: outcome.flooded };
      // The grader would have stopped it when its share ran out: what it answered after is not read.
      return shareEnds && charged > share ? { kind: 'timeout', budget: true, output: outcome.output, flooded: outcome.flooded } : outcome;
    } catch (err) {
      // Only the watchdog gets here: answer() turns whatever student code throws into an outcome.
      if (!(err instanceof HangError)) throw err;
      charged = clock?.charged() ?? 0;
      const flooded = capture.flooded;
      if (exit.exited) return { kind: 'crashed', how: exit.exited, output: capture.take(), flooded };
      return { kind: 'timeout', budget: shareEnds && (watchdog < this.timeoutMs || charged >= share), output: capture.take(), flooded };
    } finally {
      exit.release();
      if (clock) this.ledger?.charge(fn, charged);
    }
  }

  /** As the child calls it (childMain.ts): the export the spec names, missing ones throwing the child's words. */
  private invoke(spec: FunctionSpec, inputs: CaseInputs): unknown {
    const member = (this.impl as Record<string, unknown>)[spec.export];
    if (typeof member !== 'function') throw notExported(this.file, spec.export);
    return invoke(spec, member as (...args: unknown[]) => unknown, inputs, this.impl);
  }

  private answer(fn: string, inputs: CaseInputs, capture: PrintCapture): InProcessOutcome {
    const spec = specOf(this.functions, fn);
    const given = copyInputs(inputs);
    let raw: unknown;
    try {
      raw = this.invoke(spec, given);
    } catch (err) {
      const flooded = capture.flooded;
      return { kind: 'threw', error: describeError(err), unreadable: false, output: capture.take(), changed: changedInputs(inputs, given), flooded };
    }
    const changed = changedInputs(inputs, given);
    const flooded = capture.flooded;
    try {
      const value = readReturn(spec, raw, expectedShapes(spec, inputs), inputs.params);
      return { kind: 'value', value, output: capture.take(), changed, flooded };
    } catch (err) {
      return { kind: 'threw', error: describeError(err), unreadable: isA(err, ResultError), output: capture.take(), changed, flooded };
    }
  }
}

/**
 * The diagnosis's context in this process. `known(fn)`: a function's failing visible tests when
 * every one of them has run (as the grader knows them from its verdicts); otherwise they are run
 * through `session`, on the submission's instance kept for probes, and judged as the graded tests
 * judge them. Through a session, as every other call of student code here: what a call throws is
 * described under its limit and a process.exit is trapped, so neither a thrown value's getters nor
 * an exit can hang or end npm test (`npm test -- -t multihead` runs this).
 */
export function inProcessContext(
  probe: Probe, session: InProcessSession, assignment: Pick<Assignment, 'root' | 'functions' | 'cases' | 'nonFiniteHint'>, known: (fn: string) => string[] | undefined = () => undefined,
): ProbeContext {
  // Each function's run is made once, whoever asks: a stateful submission answers one sequence, as in the grader.
  const ran = new Map<string, Promise<string[]>>();
  const run = async (fn: string) => {
    const failed: string[] = [];
    let stopped = false;
    for (const graded of assignment.cases.filter((c) => c.fn === fn && !c.hidden)) {
      // After a hang or a crash, as in the grader, the function's other cases fail without a call (each would cost a limit).
      if (!stopped) {
        const fixture = loadFixture(graded.fixture, { fixturesDir: fixturesDir(assignment) });
        const outcome = session.call(graded.fn, fixture);
        if (outcome.kind === 'value' && judgeValue(assignment, graded, outcome.value, fixture).status === 'passed') continue;
        stopped = outcome.kind === 'timeout' || outcome.kind === 'crashed';
      }
      failed.push(graded.name);
    }
    return failed;
  };
  // Asked again each time: once every visible test of the function has run, their verdicts are the answer.
  return {
    probe,
    failures: async (fn) => {
      const answer = known(fn);
      if (answer) return answer;
      if (!ran.has(fn)) ran.set(fn, run(fn));
      return ran.get(fn)!;
    },
  };
}

/**
 * A thrown error's stack as the grader's child would give it (verdict.ts studentStack): the
 * message, then only the frames in the submission's own folder `root`, each named
 * `<label>/<file>:<line>:<column>` as the grader names a place (vite maps them to the source).
 */
export function ownStack(error: ErrorInfo, root: string, label: string): string {
  const lines = error.stack.split('\n');
  const first = lines.findIndex((line) => /^\s+at /.test(line));
  const message = first < 0 ? lines : lines.slice(0, first);
  const folder = root.endsWith(path.sep) ? root : root + path.sep;
  const frames = (first < 0 ? [] : lines.slice(first))
    .filter((line) => /^\s+at /.test(line) && line.includes(folder))
    .map((line) => line.split(`file://${folder}`).join(`${label}/`).split(folder).join(`${label}/`));
  return [...message, ...frames].join('\n');
}

/**
 * npm test's backend of the engine (engine.ts): each call made in this process by `session`, its
 * outcome as the grader's session reports one, a stack's frames those of the submission in `root`.
 */
export function inProcessBackend(session: InProcessSession, root: string, label: string): Backend {
  // What a call that timed out or ended printed: the grader reads that from its child's pipes.
  let unanswered = '';
  return {
    call: async (fn, inputs) => {
      const outcome = session.call(fn, inputs);
      unanswered = outcome.kind === 'timeout' || outcome.kind === 'crashed' ? outcome.output : '';
      return asSessionOutcome(outcome);
    },
    takeOutput: () => {
      const printed = unanswered;
      unanswered = '';
      return printed;
    },
    stackOf: (error) => ownStack(error, root, label),
  };
}

/** An in-process outcome as the grader's session reports the same call's (lib/sandbox/session.ts). */
function asSessionOutcome(outcome: InProcessOutcome): SessionOutcome {
  switch (outcome.kind) {
    case 'value':
      return { ...outcome, value: outcome.value.map(({ name, value }) => ({ name, value: 'data' in value ? { shape: [...value.shape], data: value.data } : { shape: [...value.shape] } })) };
    case 'threw':
      return outcome;
    case 'timeout':
      return { kind: 'timeout', budget: outcome.budget, flooded: outcome.flooded };
    case 'crashed':
      return { kind: 'crashed', how: outcome.how };
  }
}
