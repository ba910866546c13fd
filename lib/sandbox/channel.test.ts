/**
 * The grader's side of the channel meets bytes that student code chose: every input either decodes
 * to plain, bounded data or is a ProtocolError (or a refusal from readChildMessage), and nothing
 * it does grows with the input faster than the input.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../paths';
import { encodeFrame, FrameDecoder, ProtocolError } from './frames';
import { harnessModuleOf } from './protocol';
import { mapStack } from './sourceMap';
import { jsonBounds, MESSAGE_LIMITS, readChildMessage } from './validate';

const frameOf = (json: string, blob = Buffer.alloc(0)) => {
  const text = Buffer.from(json);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(4 + text.length + blob.length, 0);
  head.writeUInt32BE(text.length, 4);
  return Buffer.concat([head, text, blob]);
};

/** Decodes, reporting anything but messages or a ProtocolError as the bug it is. */
function decode(bytes: Buffer, chunk = bytes.length): unknown[] | 'refused' {
  const decoder = new FrameDecoder(MESSAGE_LIMITS.frameBytes);
  const out: unknown[] = [];
  try {
    for (let at = 0; at < bytes.length; at += chunk) out.push(...decoder.push(bytes.subarray(at, at + chunk)));
  } catch (err) {
    if (err instanceof ProtocolError) return 'refused';
    throw err;
  }
  return out;
}

describe('frames', () => {
  /** Messages as the channel carries them: JSON values with typed arrays (f32, f64, u8, any values) among them. */
  const typed = fc.oneof(fc.float32Array({ maxLength: 20 }), fc.float64Array({ maxLength: 20 }), fc.uint8Array({ maxLength: 20 }));
  const messages = fc.record({ type: fc.string(), id: fc.nat(), payload: fc.jsonValue({ maxDepth: 3 }), arrays: fc.array(typed, { maxLength: 4 }), value: fc.record({ data: typed }) });

  it('round-trips drawn messages with typed arrays, however the bytes arrive in chunks', () => {
    fc.assert(fc.property(fc.array(messages, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 64 }), (sent, chunk) => {
      const bytes = Buffer.concat(sent.map((message) => encodeFrame(message)));
      expect(decode(bytes, chunk)).toEqual(sent);
    }), { seed: 45, numRuns: 200 });
  });

  it('random bytes, Node IPC lines and truncated frames are refused or incomplete, never thrown otherwise', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 200 }), fc.integer({ min: 1, max: 16 }), (bytes, chunk) => {
      expect(() => decode(Buffer.from(bytes), chunk)).not.toThrow();
    }), { seed: 45, numRuns: 300 });
    fc.assert(fc.property(messages, fc.integer({ min: 1, max: 64 }), (message, chunk) => {
      const whole = encodeFrame(message);
      expect(() => decode(whole.subarray(0, whole.length - 1), chunk)).not.toThrow();
    }), { seed: 45, numRuns: 100 });
    expect(decode(Buffer.from('{"cmd":"NODE_HANDLE_ACK"}\n'))).toBe('refused');
  });

  it('refuses a frame over the cap from its header alone', () => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(200 * 1024 ** 2, 0);
    expect(decode(head)).toBe('refused');
  });

  it('refuses JSON nested a million deep, bad typed-array references and overlapping blobs', () => {
    expect(decode(frameOf('['.repeat(1e6) + ']'.repeat(1e6)))).toBe('refused');
    expect(decode(frameOf('{"$typed":"f64","at":0,"length":4}', Buffer.alloc(8)))).toBe('refused');
    expect(decode(frameOf('{"$typed":"f99","at":0,"length":1}', Buffer.alloc(8)))).toBe('refused');
    expect(decode(frameOf('[{"$typed":"u8","at":0,"length":8},{"$typed":"u8","at":0,"length":8}]', Buffer.alloc(8)))).toBe('refused');
    expect(decode(frameOf('{"$typed":"u8","at":-1,"length":1}', Buffer.alloc(8)))).toBe('refused');
  });
});

describe("frames from a child: bounded by an honest answer's needs, not by the frame cap", () => {
  const bounds = jsonBounds(4096);
  function decodeChild(bytes: Buffer): unknown[] | string {
    try {
      return new FrameDecoder(MESSAGE_LIMITS.frameBytes, bounds).push(bytes);
    } catch (err) {
      if (err instanceof ProtocolError) return err.message;
      throw err;
    }
  }

  it('takes the largest honest answers: output and error texts at their caps, all escaped, and braces in strings', () => {
    const output = `${'{['.repeat(1000)}${''.repeat(4096 - 2000 + MESSAGE_LIMITS.outputSlack)}`;
    const error = { name: ''.repeat(MESSAGE_LIMITS.name), message: ''.repeat(MESSAGE_LIMITS.message), stack: '"'.repeat(MESSAGE_LIMITS.stack), notImplemented: false };
    const answer = { type: 'result', id: 1, output, changed: [], ok: false, unreadable: false, error };
    expect(JSON.stringify(output).length).toBeGreaterThan(3 * output.length); // mostly escaped: six bytes a character
    const [decoded] = decodeChild(encodeFrame(answer)) as [typeof answer];
    expect(decoded.output).toBe(output);
    const value = { type: 'result', id: 1, output: '', ok: true, value: { shape: [2, 3, 4, 5], data: new Float64Array(120) } };
    expect((decodeChild(encodeFrame(value)) as [typeof value])[0].value.data).toHaveLength(120);
  });

  it('refuses JSON over its cap from the first eight bytes, and many or deeply nested objects before parsing', () => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(15 * 1024 ** 2, 0);
    head.writeUInt32BE(15 * 1024 ** 2 - 4, 4);
    expect(decodeChild(head)).toMatch(/bytes of JSON, over the cap/);
    expect(decodeChild(frameOf(`[{}${',{}'.repeat(40_000)}]`))).toMatch(new RegExp(`more than ${jsonBounds(4096).structures} objects`));
    expect(decodeChild(frameOf(`${'{"a":'.repeat(7)}1${'}'.repeat(7)}`))).toMatch(/nested more than 6 deep/);
    // Braces inside strings, and escaped quotes, are text, not structure.
    expect(decodeChild(frameOf(JSON.stringify({ type: 'ready', s: '{[\"{{{'.repeat(100) })))).toHaveLength(1);
  });
});

describe('readChildMessage', () => {
  /** An answer of one part, `value`, named as a single tensor's part is. */
  const result = (value: unknown, extra: Record<string, unknown> = {}) => parts([{ name: 'softmax', ...(value as object) }], extra);
  const parts = (value: unknown, extra: Record<string, unknown> = {}) => ({ type: 'result', id: 1, output: '', changed: [], ok: true, value, ...extra });
  const refused = (raw: unknown) => 'problem' in (readChildMessage(raw, 4096) as object);

  it('accepts an honest answer', () => {
    expect(refused(result({ shape: [2], data: new Float64Array(2) }))).toBe(false);
    expect(readChildMessage(result({ shape: [2], data: new Float64Array(2) }, { changed: [{ name: 'mask', at: 3 }] }), 4096)).toMatchObject({ changed: [{ name: 'mask', at: 3 }] });
    // A shape alone, however large: whether one may come without values is the session's to say (its request promised a shape).
    expect(refused(result({ shape: [200_000_000] }))).toBe(false);
    expect(refused({ type: 'flood', id: 1 })).toBe(false);
    // A tuple return: a few named parts, each a tensor.
    expect(readChildMessage(parts([{ name: 'output', shape: [2], data: new Float64Array(2) }, { name: 'weights', shape: [1], data: new Float32Array(1) }]), 4096))
      .toMatchObject({ value: [{ name: 'output', shape: [2] }, { name: 'weights', shape: [1] }] });
  });

  it('refuses parts that are not a short list of named tensors within one answer\'s elements', () => {
    const part = (name: unknown) => ({ name, shape: [2], data: new Float64Array(2) });
    expect(refused(parts([]))).toBe(true);
    expect(refused(parts(part('output')))).toBe(true);
    expect(refused(parts(Array.from({ length: MESSAGE_LIMITS.parts + 1 }, (_, i) => part(`p${i}`))))).toBe(true);
    expect(refused(parts([part('../x')]))).toBe(true);
    expect(refused(parts([part({ toString: () => 'output' })]))).toBe(true);
    expect(refused(parts([{ shape: [2], data: new Float64Array(2) }]))).toBe(true);
    // Each part within the cap, together over it.
    const half = (name: string) => ({ name, shape: [MESSAGE_LIMITS.elements / 2 + 1], data: new Float32Array(MESSAGE_LIMITS.elements / 2 + 1) });
    expect(refused(parts([half('a')]))).toBe(false);
    expect(refused(parts([half('a'), half('b')]))).toBe(true);
  });

  it('refuses changed inputs that are not a few names with an index', () => {
    const value = { shape: [2], data: new Float64Array(2) };
    expect(refused(result(value, { changed: [{ name: 'mask' }] }))).toBe(true);
    expect(refused(result(value, { changed: [{ name: '../x', at: 0 }] }))).toBe(true);
    expect(refused(result(value, { changed: [{ name: 'q', at: -1 }] }))).toBe(true);
    expect(refused(result(value, { changed: Array(MESSAGE_LIMITS.changed + 1).fill({ name: 'q', at: 0 }) }))).toBe(true);
    expect(refused(result(value, { changed: 'mask' }))).toBe(true);
    expect(refused(result(value, { changed: ['mask'] }))).toBe(true);
    expect(refused(result(value, { changed: [{ name: 'x'.repeat(41), at: 0 }] }))).toBe(true);
    expect(refused(result(value, { changed: [{ toString: () => 'x' }] }))).toBe(true);
  });

  it('refuses what no honest child sends', () => {
    expect(refused(result({ shape: Array(MESSAGE_LIMITS.dims + 1).fill(1), data: new Float64Array(1) }))).toBe(true);
    expect(refused(result({ shape: [1e4, 1e4], data: new Float64Array(1) }))).toBe(true);
    expect(refused(result({ shape: [2], data: [1, 2] }))).toBe(true);
    expect(refused(result({ shape: [2], data: new Float64Array(3) }))).toBe(true);
    expect(refused(result({ shape: [2], data: new Float64Array(2) }, { changed: undefined }))).toBe(true);
    expect(refused(result({ shape: [1.5] }))).toBe(true);
    expect(refused(result({ shape: [2], data: new Float64Array(2) }, { output: 'x'.repeat(4096 + MESSAGE_LIMITS.outputSlack + 1) }))).toBe(true);
    const stack = 'x'.repeat(MESSAGE_LIMITS.stack + 1);
    expect(refused({ type: 'result', id: 1, output: '', ok: false, unreadable: false, error: { name: 'E', message: 'm', stack, notImplemented: false } })).toBe(true);
    expect(refused({ type: 'result', id: '1', output: '' })).toBe(true);
    expect(refused({ cmd: 'NODE_HANDLE_ACK' })).toBe(true);
    // Its toString is not a function: String(type) would throw inside the socket's listener.
    expect(refused({ type: { toString: 0 }, id: 1 })).toBe(true);
    expect(refused({ type: ['result'], id: 1 })).toBe(true);
    expect(refused(null)).toBe(true);
  });
});

describe('student text is read in linear time', () => {
  it('mapStack on a 200 000-character line without a position', () => {
    const long = `Error: ${'a'.repeat(200_000)}`;
    // Quadratic matching took minutes on such a line; linear takes milliseconds. The bound is loose on purpose.
    const started = process.hrtime.bigint();
    expect(mapStack(long, 'student', {})).toBe(long);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5000);
  });
});

describe('harness imports', () => {
  it("the grader maps the same specifiers to the tensor and errors modules as the students' vitest alias", () => {
    const config = fs.readFileSync(path.join(PROJECT_ROOT, 'vitest.config.mts'), 'utf8');
    const alias = /find: (\/.*\/), replacement/.exec(config)?.[1];
    expect(alias, 'vitest.config.mts names its alias with a regular expression').toBeDefined();
    const vitest = new RegExp(alias!.slice(1, -1));
    for (const specifier of ['../lib/tensor', './lib/tensor.ts', '../../x/lib/errors.js', 'lib/tensor', '../lib/tensorx', '../lib/other', 'node:fs']) {
      const viaVitest = vitest.exec(specifier)?.[1];
      expect(harnessModuleOf(specifier), specifier).toBe(viaVitest);
    }
  });
});
