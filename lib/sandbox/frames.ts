/**
 * The wire format of the grader ↔ child channel (a socket pair on the child's fd 3). Not Node's IPC
 * channel: the parent's end of that one is parsed inside Node, where a child that writes raw bytes
 * or an internal `NODE_HANDLE_ACK` message throws an exception no handler can catch, and the whole
 * grading run dies. Here every byte the child sends is read by this code, under caps.
 *
 * A frame is [u32 length of the rest][u32 length of the JSON][JSON][blobs]: typed arrays travel as
 * raw bytes in the blob area, referenced from the JSON as {"$typed": kind, "at": byte offset,
 * "length": elements}. JSON.parse builds nothing but plain data, in time linear in its input.
 */

const KINDS = { f32: Float32Array, f64: Float64Array, u8: Uint8Array } as const;
type Kind = keyof typeof KINDS;
type Typed = Float32Array | Float64Array | Uint8Array;

const HEADER_BYTES = 8;

/** The channel carried something that is not a frame of this format, or one over the size cap. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

function kindOf(value: unknown): Kind | undefined {
  if (value instanceof Float32Array) return 'f32';
  if (value instanceof Float64Array) return 'f64';
  if (value instanceof Uint8Array) return 'u8';
  return undefined;
}

export function encodeFrame(message: unknown): Buffer {
  const blobs: Buffer[] = [];
  let at = 0;
  const json = JSON.stringify(message, (_key, value: unknown) => {
    const kind = kindOf(value);
    if (!kind) return value;
    const typed = value as Typed;
    blobs.push(Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength));
    const ref = { $typed: kind, at, length: typed.length };
    at += typed.byteLength;
    return ref;
  });
  const head = Buffer.alloc(HEADER_BYTES);
  const text = Buffer.from(json, 'utf8');
  head.writeUInt32BE(4 + text.length + at, 0);
  head.writeUInt32BE(text.length, 4);
  return Buffer.concat([head, text, ...blobs]);
}

/**
 * What one frame's JSON may hold. The parent reads the child's frames on its one event loop, beside
 * every classmate's timers: what a frame can cost it must be bounded by what an honest answer
 * needs, not by the frame cap (16 MiB of nested empty objects took seconds to parse).
 */
export interface JsonBounds {
  /** Bytes of JSON (tensors travel outside it, as raw bytes). */
  bytes: number;
  /** Objects and arrays in all; an honest answer has fewer than ten. */
  structures: number;
  /** How deep they nest. */
  depth: number;
}

/**
 * Counts the objects and arrays of a JSON text, and how deep they nest, outside its strings: one
 * pass over the bytes, stopped at the first bound crossed, before JSON.parse sees any of it.
 */
function checkStructure(json: Buffer, start: number, end: number, bounds: JsonBounds): void {
  let inString = false;
  let structures = 0;
  let depth = 0;
  for (let i = start; i < end; i++) {
    const byte = json[i];
    if (inString) {
      if (byte === 0x5c) i++; // a backslash: the next byte is escaped, whatever it is
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      if (++structures > bounds.structures) throw new ProtocolError(`a frame of more than ${bounds.structures} objects and arrays`);
      if (++depth > bounds.depth) throw new ProtocolError(`a frame nested more than ${bounds.depth} deep`);
    } else if (byte === 0x7d || byte === 0x5d) depth--;
  }
}

function decodeBody(body: Buffer, bounds?: JsonBounds): unknown {
  if (body.length < 4) throw new ProtocolError('a frame too short to hold its JSON length');
  const jsonBytes = body.readUInt32BE(0);
  if (jsonBytes > body.length - 4) throw new ProtocolError('a frame whose JSON runs past its end');
  if (bounds) {
    if (jsonBytes > bounds.bytes) throw new ProtocolError(`a frame of ${jsonBytes} bytes of JSON, over the cap of ${bounds.bytes}`);
    checkStructure(body, 4, 4 + jsonBytes, bounds);
  }
  const blobs = body.subarray(4 + jsonBytes);
  // References may not overlap or repeat: the copies together are never larger than the frame.
  let copied = 0;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8', 4, 4 + jsonBytes), (_key, value: unknown) => {
      if (typeof value !== 'object' || value === null || !Object.hasOwn(value, '$typed')) return value;
      const { $typed: kind, at, length } = value as { $typed: unknown; at: unknown; length: unknown };
      const Type = typeof kind === 'string' && Object.hasOwn(KINDS, kind) ? KINDS[kind as Kind] : undefined;
      if (!Type || !Number.isSafeInteger(at) || !Number.isSafeInteger(length) || (at as number) < 0 || (length as number) < 0) {
        throw new ProtocolError('a malformed typed-array reference');
      }
      const bytes = (length as number) * Type.BYTES_PER_ELEMENT;
      if ((at as number) + bytes > blobs.length) throw new ProtocolError('a typed array that runs past the frame');
      copied += bytes;
      if (copied > blobs.length) throw new ProtocolError('typed arrays that reuse the same bytes');
      // A copy: its own aligned buffer, and nothing else of the frame kept alive.
      const copy = new Type(length as number);
      new Uint8Array(copy.buffer).set(blobs.subarray(at as number, (at as number) + bytes));
      return copy;
    });
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    throw new ProtocolError(`a frame that is not valid JSON (${(err as Error).message.slice(0, 100)})`);
  }
  return parsed;
}

/**
 * Reassembles frames from a byte stream. Holds at most one frame (≤ maxFrameBytes) at a time; a
 * length over the cap is refused as soon as its four bytes arrive, before anything is buffered.
 */
export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The length of the frame being received, once its four bytes are in. */
  private length?: number;

  /** `json`: bounds on each frame's JSON, for frames from an untrusted sender. */
  constructor(
    private readonly maxFrameBytes: number,
    private readonly json?: JsonBounds,
  ) {}

  /** Messages completed by this chunk; throws ProtocolError on bytes that are not frames. */
  push(chunk: Buffer): unknown[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const messages: unknown[] = [];
    for (;;) {
      if (this.length === undefined) {
        if (this.pendingBytes < 4) return messages;
        if (this.pending[0].length < 4) this.pending = [Buffer.concat(this.pending)];
        this.length = this.pending[0].readUInt32BE(0);
        if (this.length > this.maxFrameBytes) throw new ProtocolError(`a frame of ${this.length} bytes, over the cap of ${this.maxFrameBytes}`);
      }
      // A JSON length over its cap is refused from the frame's first eight bytes, before the rest is buffered.
      if (this.json && this.pendingBytes >= 8 && this.length >= 4) {
        if (this.pending[0].length < 8) this.pending = [Buffer.concat(this.pending)];
        const jsonBytes = this.pending[0].readUInt32BE(4);
        if (jsonBytes > this.json.bytes) throw new ProtocolError(`a frame of ${jsonBytes} bytes of JSON, over the cap of ${this.json.bytes}`);
      }
      // Chunks are joined once per frame, when it is complete: never a copy per chunk.
      if (this.pendingBytes < 4 + this.length) return messages;
      const buffered = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
      messages.push(decodeBody(buffered.subarray(4, 4 + this.length), this.json));
      const rest = buffered.subarray(4 + this.length);
      this.pending = rest.length ? [rest] : [];
      this.pendingBytes = rest.length;
      this.length = undefined;
    }
  }
}
