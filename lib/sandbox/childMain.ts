/**
 * The child process that runs student code: it loads the transpiled submission, then answers one
 * case at a time with the raw value the student's function returned. It decides nothing; the
 * parent checks the value and awards the points.
 */
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { NotImplementedError } from '../errors';
import * as errors from '../errors';
import { invokeCase, type CaseRunner } from '../grading/invoke';
import * as tensorModule from '../tensor';
import { Tensor } from '../tensor';
import type { ChildMessage, ErrorInfo, LoadMessage, ParentMessage } from './protocol';
import { HARNESS_MODULES } from './protocol';

const harness: Record<string, unknown> = { tensor: tensorModule, errors };
// Captured before student code can replace them.
const send = process.send!.bind(process);
/** Reads a property of something student code threw: getters may throw, recurse or lie. */
function safeString(read: () => unknown, fallback: string): string {
  try {
    const text = String(read());
    return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  } catch {
    return fallback;
  }
}

function isA(value: unknown, type: abstract new (...args: never[]) => unknown): boolean {
  try {
    return value instanceof type; // a Proxy's getPrototypeOf trap may throw
  } catch {
    return false;
  }
}

function describeError(err: unknown): ErrorInfo {
  const notImplemented = isA(err, NotImplementedError);
  if (isA(err, Error)) {
    const e = err as Error;
    return {
      name: safeString(() => e.name, 'Error'),
      message: safeString(() => e.message, '(message could not be read)'),
      stack: safeString(() => e.stack, ''),
      notImplemented,
    };
  }
  const shown = err === null || typeof err !== 'object' ? safeString(() => err, 'a value') : 'an object';
  return { name: 'thrown value', message: `threw ${shown} instead of an Error`, stack: '', notImplemented };
}

/**
 * What student code prints is captured here, per case, up to a cap: a flood of output costs
 * neither memory nor pipe traffic, and each case's output arrives with its answer. Writes that
 * bypass process.stdout still reach the parent's pipe capture.
 */
const printed = { text: '', dropped: 0, cap: 4096 };
function capture(chunk: unknown): void {
  const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : safeString(() => chunk, '');
  const room = Math.max(0, printed.cap - printed.text.length);
  printed.text += text.slice(0, room);
  printed.dropped += text.length - Math.min(room, text.length);
}
for (const stream of [process.stdout, process.stderr]) {
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    capture(chunk);
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof stream.write;
}
// On process.exit the answer never comes: hand what was printed to the parent's pipe instead.
process.on('exit', () => fs.writeSync(1, takePrinted()));

function takePrinted(): string {
  const note = printed.dropped ? `\n… ${printed.dropped} more characters of output not shown` : '';
  const text = printed.text + note;
  printed.text = '';
  printed.dropped = 0;
  return text;
}

function reply(message: ChildMessage): void {
  try {
    send(message);
  } catch (err) {
    // A value that cannot be cloned (a Proxy, a function inside data) becomes an error answer.
    if (message.type !== 'result') throw err;
    send({ type: 'result', id: message.id, output: message.output, ok: false, error: {
      name: 'ResultError', message: `the result could not be read: ${describeError(err).message}`, stack: '', notImplemented: false,
    } });
  }
}

function loadSubmission({ files, resolutions, entry, label }: LoadMessage): Record<string, unknown> {
  const cache = new Map<string, { exports: Record<string, unknown> }>();
  const load = (file: string): Record<string, unknown> => {
    const cached = cache.get(file);
    if (cached) return cached.exports;
    const module = { exports: {} as Record<string, unknown> };
    cache.set(file, module);
    const requireFrom = (specifier: string): unknown => {
      const target = resolutions[file]?.[specifier];
      if (target === undefined) {
        throw new Error(`${label}/${file} may not import "${specifier}": a submission may import only its own files and the tensor module (${HARNESS_MODULES.tensor})`);
      }
      return target in harness ? harness[target] : load(target);
    };
    const filename = `${label}/${file}`;
    const run = vm.compileFunction(files[file], ['exports', 'require', 'module', '__filename', '__dirname'], { filename });
    run.call(module.exports, module.exports, requireFrom, module, filename, path.posix.dirname(filename));
    return module.exports;
  };
  return load(entry);
}

/** What a graded function returned, reduced to what the parent reads: shape and data. */
function extract(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null) return raw;
  const { shape, data } = raw as { shape?: unknown; data?: unknown };
  return { shape, data };
}

let impl: Record<string, unknown> = {};
const call = (name: string) => (...args: unknown[]) => {
  const fn = impl[name];
  if (typeof fn !== 'function') throw new Error(`the submission does not export a function named ${name}`);
  return extract(fn.apply(impl, args));
};
const runner: CaseRunner<unknown> = {
  runSoftmax: call('softmax'),
  runScaledDotProductAttention: call('scaledDotProductAttention'),
  runCausalMask: call('causalMask'),
  runMultiHeadSelfAttention: call('multiHeadSelfAttention'),
};

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

// Without the grader there is nobody to answer: leave rather than linger.
process.on('disconnect', () => process.exit(0));

process.on('message', (message: ParentMessage) => {
  if (message.type === 'load') {
    printed.cap = message.outputCap;
    try {
      impl = loadSubmission(message);
      reply({ type: 'loaded' });
    } catch (err) {
      reply({ type: 'load_failed', error: describeError(err) });
    }
    return;
  }
  takePrinted(); // whatever came between cases belongs to none of them
  let answer: ChildMessage;
  try {
    asTensors(message);
    const value = invokeCase(message.fn, message.inputs, runner);
    answer = { type: 'result', id: message.id, output: takePrinted(), ok: true, value };
  } catch (err) {
    answer = { type: 'result', id: message.id, output: takePrinted(), ok: false, error: describeError(err) };
  }
  reply(answer);
});
