import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { FixtureError } from './errors';
import { encodeNpy, parseNpy, readNpy, writeNpy, type NpyArray } from './npy';

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'npy-test-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
let tmpCount = 0;
const tmpDir = (): string => fs.mkdtempSync(path.join(tmpRoot, `t${tmpCount++}-`));

/** Hand-built .npy bytes: any dict text, data, version and magic, padded like NumPy (to 64). */
function craft(dict: string, data: Uint8Array, opts: { version?: [number, number]; magic?: string } = {}): Buffer {
  const [major, minor] = opts.version ?? [1, 0];
  const prefix = major === 1 ? 10 : 12;
  const padded = dict + ' '.repeat(64 - ((prefix + dict.length + 1) % 64)) + '\n';
  const head = Buffer.alloc(prefix);
  head.write(opts.magic ?? '\x93NUMPY', 0, 'latin1');
  head[6] = major;
  head[7] = minor;
  if (major === 1) head.writeUInt16LE(padded.length, 8);
  else head.writeUInt32LE(padded.length, 8);
  return Buffer.concat([head, Buffer.from(padded, 'latin1'), data]);
}
const dictFor = (descr: string, shape: string, fortran = 'False'): string =>
  `{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': ${shape}, }`;

function expectRefusal(run: () => unknown, label: string, ...parts: string[]): void {
  let caught: unknown;
  try {
    run();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(FixtureError);
  const message = (caught as Error).message;
  expect(message.startsWith(`${label}: `), message).toBe(true);
  for (const part of parts) expect(message).toContain(part);
}

const bytesOf = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const sample = (n: number, f: (i: number) => number): number[] => Array.from({ length: n }, (_, i) => f(i));
function makeData(dtype: NpyArray['dtype'], n: number): NpyArray['data'] {
  if (dtype === 'bool') return Uint8Array.from(sample(n, (i) => (i * 7) % 3 === 0 ? 1 : 0));
  const values = sample(n, (i) => Math.sin(i + 1) * 10 ** ((i % 7) - 3));
  if (n > 3) values.splice(0, 3, NaN, -0, -Infinity); // the awkward values survive too
  return dtype === 'float32' ? Float32Array.from(values) : Float64Array.from(values);
}
const HEADER_4_12_64 = `{'descr': '<f4', 'fortran_order': False, 'shape': (4, 12, 64), }${' '.repeat(53)}\n`;

describe('encodeNpy / parseNpy round trip', () => {
  /** Shapes of 0 to 6 dims, empty ones included, of at most 256 elements. */
  const shapes = fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 6 }).filter((shape) => shape.reduce((a, b) => a * b, 1) <= 256);
  /** Data of a dtype for a shape: any float32 or float64 value (NaN, −0, ±∞ too), bools as 0/1. */
  const arrays = fc.tuple(shapes, fc.constantFrom('float32', 'float64', 'bool')).chain(([shape, dtype]) => {
    const length = shape.reduce((a, b) => a * b, 1);
    const values = dtype === 'bool'
      ? fc.array(fc.constantFrom(0, 1), { minLength: length, maxLength: length }).map((v) => Uint8Array.from(v))
      : dtype === 'float32'
        ? fc.float32Array({ minLength: length, maxLength: length })
        : fc.float64Array({ minLength: length, maxLength: length });
    return values.map((data) => ({ shape, dtype, data }));
  });

  it('round-trips every dtype, shape and value, byte for byte; and a typed array that is a window into a larger buffer', () => {
    fc.assert(fc.property(arrays, fc.nat({ max: 3 }), ({ shape, dtype, data }, offset) => {
      // The same values seen through a window `offset` elements into a larger buffer.
      const Ctor = data.constructor as new (buffer: ArrayBufferLike, byteOffset: number, length: number) => NpyArray['data'];
      const big = new Uint8Array((data.length + offset + 1) * data.BYTES_PER_ELEMENT);
      big.set(bytesOf(data), offset * data.BYTES_PER_ELEMENT);
      const window = new Ctor(big.buffer, offset * data.BYTES_PER_ELEMENT, data.length);
      for (const given of [data, window]) {
        const back = parseNpy(encodeNpy({ data: given, shape }), 'mem.npy');
        expect(back.dtype).toBe(dtype);
        expect(back.shape).toEqual(shape);
        expect(back.data.constructor).toBe(data.constructor);
        expect(bytesOf(back.data).equals(bytesOf(data))).toBe(true);
      }
    }), { seed: 45, numRuns: 200 });
  });

  it('writes the header text exactly as NumPy does, padded to 64 bytes', () => {
    const bytes = Buffer.from(encodeNpy({ data: new Float32Array(4 * 12 * 64), shape: [4, 12, 64] }));
    expect(bytes.subarray(0, 10).equals(Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, 118, 0]))).toBe(true);
    expect(bytes.subarray(10, 128).toString('latin1')).toBe(HEADER_4_12_64);
    expect(bytes.length).toBe(128 + 4 * 12 * 64 * 4);
    // Bytes np.save wrote for np.zeros(5), np.array(True) (NumPy 1.24).
    const f64 = Buffer.from(encodeNpy({ data: new Float64Array(5), shape: [5] })).subarray(10, 128).toString('latin1');
    expect(f64).toBe(`{'descr': '<f8', 'fortran_order': False, 'shape': (5,), }${' '.repeat(60)}\n`);
    const b0 = Buffer.from(encodeNpy({ data: Uint8Array.of(1), shape: [] })).subarray(10, 128).toString('latin1');
    expect(b0).toBe(`{'descr': '|b1', 'fortran_order': False, 'shape': (), }${' '.repeat(62)}\n`);
  });

  it('always makes the total header length a multiple of 64 (and at least one pad space)', () => {
    // Up to 40 dims, each of up to 10 digits: the header grows past several multiples of 64.
    const shapes = fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { maxLength: 40 }).map((shape) => (shape.length ? [0, ...shape.slice(1)] : shape));
    fc.assert(fc.property(shapes, (shape) => {
      const bytes = Buffer.from(encodeNpy({ data: new Float64Array(shape.reduce((a, b) => a * b, 1)), shape }));
      const headerLen = bytes.readUInt16LE(8);
      expect((10 + headerLen) % 64).toBe(0);
      expect(bytes[10 + headerLen - 1]).toBe(0x0a);
      expect(bytes[10 + headerLen - 2]).toBe(0x20);
    }), { seed: 45, numRuns: 200 });
  });

  it('is deterministic byte for byte', () => {
    const make = () => encodeNpy({ data: makeData('float32', 24), shape: [2, 3, 4] });
    expect(Buffer.from(make()).equals(Buffer.from(make()))).toBe(true);
  });

  it('refuses to encode a shape that does not match the data, or bools other than 0/1', () => {
    expectRefusal(() => encodeNpy({ data: new Float32Array(5), shape: [2, 3] }), 'encodeNpy', '(2, 3) holds 6 elements but data has 5');
    expectRefusal(() => encodeNpy({ data: Uint8Array.of(0, 2), shape: [2] }), 'encodeNpy', 'only 0 and 1');
    expectRefusal(() => encodeNpy({ data: new Float32Array(2), shape: [-2] }), 'encodeNpy', 'invalid shape');
  });
});

describe('parseNpy: buffers and types', () => {
  it('parses a Buffer sliced out of a larger pool at an odd offset, returning an array that owns its buffer', () => {
    for (const dtype of ['float32', 'float64', 'bool'] as const) {
      const data = makeData(dtype, 24);
      const file = Buffer.from(encodeNpy({ data, shape: [4, 6] }));
      const junk = Buffer.alloc(13, 0xab);
      const pooled = Buffer.concat([junk, file, junk]).subarray(13, 13 + file.length);
      expect(pooled.byteOffset % 2).toBe(1); // odd, so not even a Float32Array could view it in place
      expect(pooled.buffer.byteLength).toBeGreaterThan(file.length);
      const back = parseNpy(pooled, 'pooled.npy');
      expect(back.shape).toEqual([4, 6]);
      expect(bytesOf(back.data).equals(bytesOf(data))).toBe(true);
      expect(back.data.byteOffset).toBe(0);
      expect(back.data.buffer.byteLength).toBe(back.data.byteLength);
      expect(back.data.byteLength).toBe(24 * back.data.BYTES_PER_ELEMENT);
    }
  });

  it('returns bools as a Uint8Array of 0/1, not a JS array', () => {
    const back = parseNpy(craft(dictFor('|b1', '(4,)'), Buffer.from([1, 0, 0, 1])), 'b.npy');
    expect(back.data).toBeInstanceOf(Uint8Array);
    expect(back.dtype).toBe('bool');
    expect(Array.from(back.data)).toEqual([1, 0, 0, 1]);
    expect(back.data.buffer.byteLength).toBe(4);
  });

  it("accepts '<b1' as bool and format versions 2.0 and 3.0", () => {
    expect(Array.from(parseNpy(craft(dictFor('<b1', '(2,)'), Buffer.from([0, 1])), 'b.npy').data)).toEqual([0, 1]);
    const f8 = bytesOf(Float64Array.of(1.5, -2));
    for (const version of [[2, 0], [3, 0]] as [number, number][]) {
      const back = parseNpy(craft(dictFor('<f8', '(2,)'), f8, { version }), `v${version[0]}.npy`);
      expect(Array.from(back.data)).toEqual([1.5, -2]);
    }
  });
});

describe('parseNpy refusals (FixtureError starting with the label)', () => {
  const f4 = (n: number): Buffer => Buffer.alloc(n * 4);
  it('refuses a truncated file, giving the expected and actual byte counts', () => {
    const bytes = craft(dictFor('<f4', '(4, 12, 64)'), Buffer.alloc(1000));
    expectRefusal(() => parseNpy(bytes, 'fixtures/q.npy'), 'fixtures/q.npy',
      'truncated: header says shape (4, 12, 64) float32 = 12288 bytes of data, file has 1000', 'npm run fixtures');
  });
  it('refuses trailing bytes after the data', () => {
    expectRefusal(() => parseNpy(craft(dictFor('<f4', '(3,)'), f4(3 + 2)), 'x.npy'), 'x.npy', 'has 8 trailing bytes after the data');
  });
  it('refuses bad magic', () => {
    const bytes = craft(dictFor('<f4', '(3,)'), f4(3), { magic: 'PK\x03\x04zz' });
    expectRefusal(() => parseNpy(bytes, 'x.npy'), 'x.npy', 'not an .npy file (bad magic');
  });
  it('refuses an empty or too-short file', () => {
    expectRefusal(() => parseNpy(new Uint8Array(0), 'empty.npy'), 'empty.npy', 'not an .npy file (too short');
    expectRefusal(() => parseNpy(Buffer.from('\x93NUMPY\x01', 'latin1'), 'short.npy'), 'short.npy', 'not an .npy file (too short');
  });
  it('refuses a header length that runs past the end of the file', () => {
    const bytes = craft(dictFor('<f4', '(3,)'), f4(3)).subarray(0, 40);
    expectRefusal(() => parseNpy(bytes, 'x.npy'), 'x.npy', 'truncated: header length 118 runs past the end of the file (40 bytes)');
  });
  it('refuses an unknown format version', () => {
    expectRefusal(() => parseNpy(craft(dictFor('<f4', '(3,)'), f4(3), { version: [4, 0] }), 'x.npy'), 'x.npy',
      'unsupported .npy format version 4.0 (supported: 1.0, 2.0, 3.0)');
  });
  it('refuses Fortran order with the fix', () => {
    expectRefusal(() => parseNpy(craft(dictFor('<f4', '(2, 3)', 'True'), f4(6)), 'x.npy'), 'x.npy',
      'Fortran-ordered arrays are not supported: save with np.ascontiguousarray');
  });
  it.each([
    ['>f4', 4, 'big-endian float32'],
    ['<i8', 8, 'int64'],
    ['<f2', 2, 'float16'],
    ['<c8', 8, 'complex64'],
    ['|u1', 1, 'uint8'],
    ['<U3', 12, 'unicode string'],
    ['|O', 8, 'Python object'],
  ])('refuses dtype %s, naming it (%s bytes/item) and listing the supported ones', (descr, size, name) => {
    expectRefusal(() => parseNpy(craft(dictFor(descr, '(2,)'), Buffer.alloc(2 * size)), 'x.npy'), 'x.npy',
      `unsupported dtype '${descr}' (${name})`, "supported: '<f4' (float32), '<f8' (float64), '|b1' (bool)");
  });
  it('refuses a bool byte other than 0 and 1', () => {
    expectRefusal(() => parseNpy(craft(dictFor('|b1', '(4,)'), Buffer.from([0, 1, 2, 1])), 'x.npy'), 'x.npy',
      'bool array has byte 2 at flat index 2');
  });
  it.each([
    ["{'descr': '<f4', 'shape': (3,), }", 'missing key'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1, }", 'extra key'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", '(3) is not a tuple'],
    ["{'descr': '<f4', 'fortran_order': 0, 'shape': (3,), }", 'fortran_order not a bool'],
    ["{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", 'structured dtype'],
    ["not a dict at all", 'not a dict'],
  ])('refuses a malformed header: %s (%s)', (dict) => {
    expectRefusal(() => parseNpy(craft(dict, f4(3)), 'x.npy'), 'x.npy', 'malformed .npy header');
  });
  it('accepts a header dict with other spacing and key order, as literal_eval would', () => {
    const back = parseNpy(craft("{ 'shape':(3 ,) ,'fortran_order':False,'descr':'<f4'}", Buffer.from(Float32Array.of(1, 2, 3).buffer)), 'x.npy');
    expect(Array.from(back.data)).toEqual([1, 2, 3]);
  });
  it("wraps npyjs's own exceptions in a FixtureError naming the file", () => {
    // A 3-byte header padding leaves float32 data at an offset that is not a multiple of 4:
    // npyjs's Float32Array view throws a RangeError.
    const dict = dictFor('<f4', '(2,)') + ' '.repeat(3);
    const head = Buffer.alloc(10);
    head.write('\x93NUMPY', 0, 'latin1');
    head[6] = 1;
    head.writeUInt16LE(dict.length + 1, 8);
    const bytes = Buffer.concat([head, Buffer.from(dict + '\n', 'latin1'), f4(2)]);
    expect((10 + dict.length + 1) % 4).not.toBe(0);
    expectRefusal(() => parseNpy(bytes, 'odd.npy'), 'odd.npy', 'npyjs could not parse it');
  });
});

describe('readNpy / writeNpy', () => {
  it('writes atomically and reads back, leaving no temp files', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'a.npy');
    writeNpy(file, { data: Float32Array.of(9, 9), shape: [2] });
    const data = makeData('float32', 12);
    writeNpy(file, { data, shape: [3, 4] }); // overwrites through a rename
    expect(fs.readdirSync(dir)).toEqual(['a.npy']);
    const back = readNpy(file);
    expect(back.shape).toEqual([3, 4]);
    expect(bytesOf(back.data).equals(bytesOf(data))).toBe(true);
    expect(fs.readFileSync(file).equals(Buffer.from(encodeNpy({ data, shape: [3, 4] })))).toBe(true);
  });
  it('refuses a missing file, naming it', () => {
    const file = path.join(tmpDir(), 'nope.npy');
    expectRefusal(() => readNpy(file), file, 'not found', 'npm run fixtures');
    expectRefusal(() => readNpy(file, 'fixtures/nope.npy'), 'fixtures/nope.npy', `not found (${file})`);
  });
  it('prefixes refusals with the label given to readNpy', () => {
    const file = path.join(tmpDir(), 'bad.npy');
    fs.writeFileSync(file, 'hello');
    expectRefusal(() => readNpy(file, 'fixtures/bad.npy'), 'fixtures/bad.npy', 'too short');
  });
  it('refuses to write into a missing folder, with a FixtureError naming the file', () => {
    const file = path.join(tmpDir(), 'no', 'such', 'x.npy');
    expectRefusal(() => writeNpy(file, { data: new Float64Array(1), shape: [] }), file, 'cannot write');
  });
  it('refuses to write mismatched data, naming the file', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'x.npy');
    expectRefusal(() => writeNpy(file, { data: new Float64Array(3), shape: [2] }), file, 'holds 2 elements but data has 3');
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
