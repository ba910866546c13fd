/**
 * What the parent accepts from a child. A child runs student code, and student code can write any
 * frame to the channel itself, bypassing the child runtime's own caps: every message is checked
 * here, field by field, before the session looks at it. A message that fails is a protocol
 * violation (the child is killed and the case says why); one that passes is plain, bounded data.
 */
import type { JsonBounds } from './frames';
import type { ChildMessage, ErrorInfo, InputChange, WireReturn, WireValue } from './protocol';

export const MESSAGE_LIMITS = {
  /** One frame on the channel: far above any honest answer (the largest output is a few hundred KiB). */
  frameBytes: 16 * 1024 ** 2,
  /** Characters of an error's name, message and stack (the child runtime keeps less). */
  name: 200,
  message: 8000,
  stack: 16000,
  /** Characters of printed output, beyond the session's cap (the child appends a short note). */
  outputSlack: 512,
  /** Dims of a returned tensor, and the elements of every tensor of an answer (a shape sent without values may claim more). */
  dims: 32,
  elements: 1 << 24,
  /** Tensors in one answer (a tuple return's parts): a function returns a few at most. */
  parts: 8,
  /** Inputs a call may say it changed: a case has at most eight. */
  changed: 8,
};

/**
 * What one message's JSON may hold: room for the longest honest answer (printed output and an
 * error's texts at their caps, every character escaped to six bytes), and the few objects such an
 * answer has. Tensors travel outside the JSON, as raw bytes.
 */
export function jsonBounds(outputCap: number): JsonBounds {
  const characters = outputCap + MESSAGE_LIMITS.outputSlack + MESSAGE_LIMITS.name + MESSAGE_LIMITS.message + MESSAGE_LIMITS.stack;
  return { bytes: 6 * characters + 4096, structures: 16 + 2 * MESSAGE_LIMITS.parts, depth: 6 };
}

type Checked<T> = T | { problem: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function text(value: unknown, max: number, what: string): Checked<string> {
  if (typeof value !== 'string') return { problem: `${what} is not text` };
  return value.length <= max ? value : { problem: `${what} is ${value.length} characters long (at most ${max})` };
}

function errorInfo(value: unknown): Checked<ErrorInfo> {
  if (!isRecord(value) || typeof value.notImplemented !== 'boolean') return { problem: 'an error without its fields' };
  const name = text(value.name, MESSAGE_LIMITS.name, "an error's name");
  const message = text(value.message, MESSAGE_LIMITS.message, "an error's message");
  const stack = text(value.stack, MESSAGE_LIMITS.stack, "an error's stack");
  for (const part of [name, message, stack]) if (typeof part !== 'string') return part;
  return { name: name as string, message: message as string, stack: stack as string, notImplemented: value.notImplemented };
}

/** A tensor, or a shape alone (whether the session accepts one without values is its to check); `room`: elements left in the answer. */
function wireValue(value: unknown, room: number): Checked<WireValue> {
  if (!isRecord(value)) return { problem: 'a value that is not a tensor' };
  const { shape, data } = value;
  if (!Array.isArray(shape) || shape.length > MESSAGE_LIMITS.dims) return { problem: `a shape that is not a list of at most ${MESSAGE_LIMITS.dims} dims` };
  let size = 1;
  for (const dim of shape) {
    if (!Number.isSafeInteger(dim) || dim < 0) return { problem: 'a shape with a dim that is not a non-negative integer' };
    size *= dim;
  }
  if (!Object.hasOwn(value, 'data')) return { shape: shape as number[] };
  if (size > room) return { problem: `a shape of more than ${MESSAGE_LIMITS.elements} elements` };
  if (!(data instanceof Float32Array || data instanceof Float64Array || data instanceof Uint8Array)) return { problem: 'data that is not a typed array' };
  if (data.length !== size) return { problem: `${data.length} values for a shape of ${size}` };
  return { shape: shape as number[], data };
}

/** An answer's parts: a short list of named tensors (whether the names are the function's is the session's to check). */
function wireReturn(value: unknown): Checked<WireReturn> {
  if (!Array.isArray(value) || value.length === 0 || value.length > MESSAGE_LIMITS.parts) return { problem: `a value that is not a list of 1 to ${MESSAGE_LIMITS.parts} tensors` };
  const parts: WireReturn = [];
  let room = MESSAGE_LIMITS.elements;
  for (const part of value) {
    if (!isRecord(part) || typeof part.name !== 'string' || !/^\w{1,40}$/.test(part.name)) return { problem: 'a returned tensor without a name' };
    const read = wireValue(part, room);
    if ('problem' in read) return read;
    if ('data' in read) room -= read.data.length;
    parts.push({ name: part.name, ...read });
  }
  return parts;
}

/** The inputs a call says it changed: a few names of inputs, each with an index. */
function inputChanges(value: unknown): Checked<InputChange[]> {
  if (!Array.isArray(value) || value.length > MESSAGE_LIMITS.changed) return { problem: `a list of changed inputs that is not a list of at most ${MESSAGE_LIMITS.changed}` };
  const changed: InputChange[] = [];
  for (const entry of value) {
    if (!isRecord(entry) || typeof entry.name !== 'string' || !/^\w{1,40}$/.test(entry.name) || !Number.isSafeInteger(entry.at) || (entry.at as number) < 0) {
      return { problem: 'a changed input without a name and an index' };
    }
    changed.push({ name: entry.name, at: entry.at as number });
  }
  return changed;
}

/** The message as a ChildMessage, or why it is not one. `outputCap` is the session's cap on printed output. */
export function readChildMessage(raw: unknown, outputCap: number): Checked<ChildMessage> {
  if (!isRecord(raw)) return { problem: 'a message that is not an object' };
  const { type, id } = raw;
  if (type === 'ready') return { type };
  if (!Number.isSafeInteger(id)) return { problem: 'a message without a numeric id' };
  const ok = { id: id as number };
  if (type === 'loaded' || type === 'flood') return { type, ...ok };
  if (type === 'load_failed') {
    const error = errorInfo(raw.error);
    return 'problem' in error ? error : { type, ...ok, error };
  }
  // Never String(type): a hostile object's toString may throw, loop or lie.
  if (type !== 'result') return { problem: `a message of unknown type ${typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : `(${typeof type})`}` };
  const output = text(raw.output, outputCap + MESSAGE_LIMITS.outputSlack, 'printed output');
  if (typeof output !== 'string') return output;
  const changed = inputChanges(raw.changed);
  if (!Array.isArray(changed)) return changed;
  if (raw.ok === true) {
    const value = wireReturn(raw.value);
    return 'problem' in value ? value : { type, ...ok, output, changed, ok: true, value };
  }
  if (raw.ok !== false || typeof raw.unreadable !== 'boolean') return { problem: 'a result that is neither a value nor an error' };
  const error = errorInfo(raw.error);
  return 'problem' in error ? error : { type, ...ok, output, changed, ok: false, unreadable: raw.unreadable, error };
}
