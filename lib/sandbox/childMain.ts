/**
 * The child process that runs student code: it loads the transpiled submission and the specs of
 * the functions it is to run, then answers one case at a time with what the student's function
 * returned, each part read as a tensor by the code npm test uses (lib/assignment/returns.ts). It
 * decides nothing; the parent checks the value and awards the points. It talks to the parent over
 * fd 3 in frames (frames.ts), never Node's IPC channel.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { invoke } from '../assignment/call';
import { specOf, type FunctionSpec } from '../assignment/functions';
import { notExported, readReturn } from '../assignment/returns';
import { ResultError } from '../errors';
import * as errors from '../errors';
import { changedInputs, copyInputs } from '../model/invoke';
import * as tensorModule from '../tensor';
import { Tensor } from '../tensor';
import { closeWriteRoutes } from './childHardening';
import { describeError, isA } from './errorInfo';
import { loadModules } from './loadModules';
import { encodeFrame, FrameDecoder } from './frames';
import { chunkText, PrintCapture, redirectConsole } from './printed';
import type { ChildMessage, ParentMessage, WireReturn } from './protocol';

closeWriteRoutes();

const harness: Record<string, unknown> = { tensor: tensorModule, errors };
/**
 * The channel: fd 3, this end of a socket pair the parent made, blocking on this side. It is read
 * and written with fs, which Node has loaded before any script runs, rather than a net.Socket:
 * loading net and its streams took about 10 ms of every child's start.
 */
const CHANNEL_FD = 3;
// Taken now, before student code runs: whatever it does to the fs module later changes no message of ours.
const { read, writeSync } = fs;
/** Read size: a case's inputs come in a few reads, each into a buffer of its own (the decoder keeps them). */
const READ_BYTES = 256 * 1024;
/** Whole frames, in order: an answer is small beside the socket's buffer, and the parent always reads. */
function send(message: ChildMessage): void {
  const frame = encodeFrame(message);
  for (let at = 0; at < frame.length; ) at += writeSync(CHANNEL_FD, frame, at);
}
/** The parent is trusted: its frames may be as large as a case's inputs need. */
const PARENT_FRAME_BYTES = 1024 ** 3;
/** The case being answered, whose output a flood notice is about. */
let answering: number | undefined;

/**
 * What student code prints is captured here, per case, up to a cap (printed.ts, as under npm
 * test): a flood of output costs neither memory nor pipe traffic, and each case's output arrives
 * with its answer. Writes that bypass process.stdout still reach the parent's pipe capture.
 */
const printed = new PrintCapture(4096, () => {
  if (answering !== undefined) send({ type: 'flood', id: answering });
});
redirectConsole(console, printed);

/**
 * process.stdout and process.stderr are capture streams of our own, put in place before anything
 * reads them: Node builds the real ones on first use, and for a pipe that loads net and its
 * streams (about 10 ms of every child's start) only to have their write replaced.
 */
function captureStream(fd: number): NodeJS.WriteStream {
  const write = (chunk: unknown, ...rest: unknown[]) => {
    printed.print(() => chunkText(chunk));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  };
  const stream = Object.assign(new EventEmitter(), {
    fd, isTTY: false, writable: true, write, end: (...args: unknown[]) => (args.length && typeof args[0] !== 'function' ? write(...(args as [unknown])) : true),
    cork: () => undefined, uncork: () => undefined,
  });
  return stream as unknown as NodeJS.WriteStream;
}
for (const [name, fd] of [['stdout', 1], ['stderr', 2]] as const) {
  const stream = captureStream(fd);
  Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => stream });
}
// On process.exit the answer never comes: hand what was printed to the parent's pipe instead.
process.on('exit', () => fs.writeSync(1, printed.take()));


let impl: Record<string, unknown> = {};
let entryFile = '';
let functions: FunctionSpec[] = [];

/** The submission's export named by the spec, called with the case's arguments as the spec makes them. */
function call(spec: FunctionSpec, inputs: Parameters<typeof invoke>[2]): unknown {
  const fn = impl[spec.export];
  if (typeof fn !== 'function') throw notExported(entryFile, spec.export);
  return invoke(spec, fn as (...args: unknown[]) => unknown, inputs, impl);
}

/**
 * A case's answer. The function gets its own copy of the inputs, and the answer says which of
 * them it changed in place. A ResultError from normalising (not a tensor, wrong length…) is
 * `unreadable`: the function returned, and the message says what is wrong with what it returned.
 * An answer larger than the shape promised is sent as its shape alone (judgedByShape). Reading the
 * value may run student code too (getters, Proxies): whatever that throws is caught here.
 */
function answer(message: ParentMessage & { type: 'case' }): ChildMessage {
  const { id, fn, inputs, expect } = message;
  const spec = specOf(functions, fn);
  const given = copyInputs(inputs);
  let raw: unknown;
  try {
    raw = call(spec, given);
  } catch (err) {
    return { type: 'result', id, output: printed.take(), changed: changedInputs(inputs, given), ok: false, unreadable: false, error: describeError(err) };
  }
  const changed = changedInputs(inputs, given);
  try {
    const read = readReturn(spec, raw, expect.map((shape) => shape ?? undefined), inputs.params);
    const value: WireReturn = read.map(({ name, value: part }) => (part instanceof Tensor ? { name, shape: [...part.shape], data: part.data } : { name, shape: [...part.shape] }));
    return { type: 'result', id, output: printed.take(), changed, ok: true, value };
  } catch (err) {
    const unreadable = isA(err, ResultError);
    return { type: 'result', id, output: printed.take(), changed, ok: false, unreadable, error: describeError(err) };
  }
}

/** Inputs arrive as plain { data, shape } clones; the student gets real Tensors. */
function asTensors(inputs: ParentMessage & { type: 'case' }): void {
  for (const [name, value] of Object.entries(inputs.inputs.inputs)) {
    inputs.inputs.inputs[name] = new Tensor(value.data, value.shape);
  }
}

// Student code that throws later or leaves a rejection behind must not take the child down: the
// case it belongs to already has its answer.
process.on('uncaughtException', (err) => console.error(`uncaught exception: ${describeError(err).message}`));
process.on('unhandledRejection', (err) => console.error(`unhandled rejection: ${describeError(err).message}`));

function receive(message: ParentMessage): void {
  if (message.type === 'load') {
    printed.cap = message.outputCap;
    answering = undefined;
    entryFile = `${message.label}/${message.entry}`;
    functions = message.functions;
    try {
      impl = loadModules(message, harness);
      send({ type: 'loaded', id: message.id });
    } catch (err) {
      send({ type: 'load_failed', id: message.id, error: describeError(err) });
    }
    return;
  }
  printed.take(); // whatever came between cases belongs to none of them
  asTensors(message);
  answering = message.id;
  try {
    send(answer(message));
  } finally {
    answering = undefined;
  }
}

const decoder = new FrameDecoder(PARENT_FRAME_BYTES);
/** One read at a time, on libuv's thread pool: the event loop (student code's timers too) runs meanwhile, as with a socket. */
function readChannel(): void {
  const chunk = Buffer.allocUnsafe(READ_BYTES);
  read(CHANNEL_FD, chunk, 0, READ_BYTES, null, (err, bytes) => {
    // Without the grader there is nobody to answer: leave rather than linger.
    if (err || bytes === 0) process.exit(0);
    try {
      for (const message of decoder.push(chunk.subarray(0, bytes))) receive(message as ParentMessage);
    } finally {
      // Even after a throw (reported as uncaught), the next request is read: the parent decides when this child ends.
      readChannel();
    }
  });
}
send({ type: 'ready' });
readChannel();
