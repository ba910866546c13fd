/**
 * Reading and writing the fixtures' `.npy` files (NumPy format 1.0–3.0), for three dtypes only:
 * float32 `<f4` ⇔ Float32Array, float64 `<f8` ⇔ Float64Array, bool `|b1` ⇔ Uint8Array of 0/1.
 *
 * Reading goes through npyjs, which does almost no checking (it reads past the end, ignores
 * truncation and Fortran order, returns any dtype), so everything is validated here first and a
 * bad file is refused with a FixtureError naming it, instead of grading against garbage.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
// npyjs's package.json lists its ESM `types` ahead of the `require` condition, so TypeScript
// believes require('npyjs') loads ESM (TS1479); at run time require gets dist/index.cjs (the scripts)
// and import gets dist/index.js (vitest), both fine. The types still apply.
// @ts-ignore TS1479, see above (not @ts-expect-error: the error depends on tsconfig's module setting)
import { parse as npyjsParse } from 'npyjs';
import { FixtureError } from './errors';
import { FIXTURES_FIX } from './paths';

export type NpyDType = 'float32' | 'float64' | 'bool';
export interface NpyArray {
  data: Float32Array | Float64Array | Uint8Array;
  shape: number[];
  dtype: NpyDType;
}
export interface NpyInput {
  data: Float32Array | Float64Array | Uint8Array;
  shape: readonly number[];
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"
// NumPy writes '|b1' for bool; '<b1' is the same bytes and npyjs handles it identically.
const DESCRS: Record<string, NpyDType> = { '<f4': 'float32', '<f8': 'float64', '|b1': 'bool', '<b1': 'bool' };
const ITEMSIZE: Record<NpyDType, number> = { float32: 4, float64: 8, bool: 1 };
const SUPPORTED = "supported: '<f4' (float32), '<f8' (float64), '|b1' (bool)";
const REGENERATE = FIXTURES_FIX;
const KINDS: Record<string, string> = {
  f: 'float', i: 'int', u: 'uint', c: 'complex', b: 'bool', U: 'unicode string', S: 'byte string',
  O: 'Python object', V: 'void/structured', M: 'datetime64', m: 'timedelta64',
};

/** Every refusal: a FixtureError whose message starts with the file's label. */
function refuse(label: string, why: string): never {
  throw new FixtureError(`${label}: ${why}`);
}

// Typed arrays use the machine's byte order and .npy data here is little-endian: on a big-endian
// machine both directions would silently byte-swap every value.
function assertLittleEndian(): void {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
    throw new FixtureError('npy: this machine is big-endian; only little-endian machines are supported');
  }
}

/** Python's repr of a shape tuple, as NumPy writes it: `()`, `(5,)`, `(4, 12, 64)`. */
function pyShape(shape: readonly number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
}

/** Human name of a descr NumPy may write, e.g. '>f4' → "big-endian float32", '<i8' → "int64". */
function describeDescr(descr: string): string {
  const m = /^([<>|=]?)([a-zA-Z])(\d*)$/.exec(descr);
  if (!m) return 'not a simple dtype';
  const [, order, kind, size] = m;
  const name = KINDS[kind] ?? `kind '${kind}'`;
  const bits = 'fiuc'.includes(kind) && size ? String(Number(size) * 8) : '';
  return `${order === '>' ? 'big-endian ' : ''}${name}${bits}`;
}

type HeaderValue = string | boolean | number[];
/**
 * The header is a Python dict literal; NumPy reads it with ast.literal_eval. This accepts exactly
 * the literals a valid header can hold (quoted strings, True/False, tuples of ints) and returns
 * null for anything else, rather than npyjs's regexes that pick values out of any text.
 */
function parseHeaderDict(text: string): Map<string, HeaderValue> | null {
  const body = /^\{([\s\S]*)\}$/.exec(text.trim())?.[1];
  if (body === undefined) return null;
  const entry = /\s*'([^']*)'\s*:\s*(?:'([^']*)'|(True|False)|\(\s*((?:\d+\s*,\s*)*(?:\d+\s*)?)\))\s*(,|$)/y;
  const fields = new Map<string, HeaderValue>();
  while (body.slice(entry.lastIndex).trim() !== '') {
    const m = entry.exec(body);
    if (!m || fields.has(m[1])) return null;
    const [, key, str, bool, tuple] = m;
    if (tuple !== undefined) {
      const dims = tuple.split(',').map((s) => s.trim()).filter((s) => s !== '');
      if (dims.length === 1 && !tuple.includes(',')) return null; // `(5)` is an int, not a tuple
      fields.set(key, dims.map(Number));
    } else fields.set(key, str ?? bool === 'True');
  }
  return fields;
}

export function parseNpy(bytes: Uint8Array, label: string): NpyArray {
  assertLittleEndian();
  const fail: (why: string) => never = (why) => refuse(label, why);
  // Magic, version, header length (2 bytes in 1.0, 4 in 2.0/3.0) and at least `{}`: 12 bytes.
  if (bytes.length < 12) fail(`not an .npy file (too short: ${bytes.length} bytes); ${REGENERATE}`);
  if (MAGIC.some((b, i) => bytes[i] !== b)) fail(`not an .npy file (bad magic: does not start with \\x93NUMPY); ${REGENERATE}`);
  const [major, minor] = [bytes[6], bytes[7]];
  if (![1, 2, 3].includes(major) || minor !== 0) fail(`unsupported .npy format version ${major}.${minor} (supported: 1.0, 2.0, 3.0)`);
  // A Buffer may be a window into a larger shared pool, so its .buffer holds other bytes and may
  // start at an odd offset: give npyjs a fresh ArrayBuffer holding exactly this file.
  const file = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(file).set(bytes);
  const headerStart = major === 1 ? 10 : 12;
  const headerLen = major === 1 ? new DataView(file).getUint16(8, true) : new DataView(file).getUint32(8, true);
  const dataStart = headerStart + headerLen;
  if (dataStart > bytes.length) fail(`truncated: header length ${headerLen} runs past the end of the file (${bytes.length} bytes); ${REGENERATE}`);
  // Versions 1.0 and 2.0 store the header in latin1, 3.0 in UTF-8.
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(headerStart, dataStart));
  const fields = parseHeaderDict(header);
  const descr = fields?.get('descr');
  const fortran = fields?.get('fortran_order');
  const shape = fields?.get('shape');
  if (fields?.size !== 3 || typeof descr !== 'string' || typeof fortran !== 'boolean' || !Array.isArray(shape)) {
    return fail(`malformed .npy header (want {'descr': ..., 'fortran_order': ..., 'shape': (...)}): ${JSON.stringify(header.slice(0, 200))}; ${REGENERATE}`);
  }
  const dtype = DESCRS[descr];
  if (!dtype) fail(`unsupported dtype '${descr}' (${describeDescr(descr)}); ${SUPPORTED}: convert before saving, e.g. arr.astype('<f4')`);
  if (fortran) fail('Fortran-ordered arrays are not supported: save with np.ascontiguousarray');
  const count = shape.reduce((a, b) => a * b, 1);
  const want = count * ITEMSIZE[dtype];
  const have = bytes.length - dataStart;
  const what = `shape ${pyShape(shape)} ${dtype} = ${want} bytes of data`;
  if (have < want) fail(`truncated: header says ${what}, file has ${have}; ${REGENERATE}`);
  if (have > want) fail(`has ${have - want} trailing bytes after the data (header says ${what}); ${REGENERATE}`);
  if (dtype === 'bool') {
    const bad = bytes.subarray(dataStart).findIndex((b) => b > 1);
    if (bad >= 0) fail(`bool array has byte ${bytes[dataStart + bad]} at flat index ${bad} (only 0 and 1 are valid); ${REGENERATE}`);
  }

  let parsed: ReturnType<typeof npyjsParse>;
  try {
    parsed = npyjsParse(file);
  } catch (err) {
    throw new FixtureError(`${label}: npyjs could not parse it: ${(err as Error).message}; ${REGENERATE}`, { cause: err });
  }
  // npyjs found the same header (its regexes against our parse) and as many elements.
  const raw: unknown = parsed.data;
  const length = (raw as { length?: unknown }).length;
  if (pyShape(parsed.shape) !== pyShape(shape) || parsed.fortranOrder || length !== count) {
    fail(`npyjs read it differently (shape ${pyShape(parsed.shape)}, ${String(length)} elements); ${REGENERATE}`);
  }
  // npyjs returns views into `file` (after the header) and bools as a plain boolean[]: copy into
  // typed arrays that own exactly-sized buffers, so neither quirk reaches callers.
  const data = dtype === 'bool' ? Uint8Array.from(raw as ArrayLike<boolean>, (b) => (b ? 1 : 0))
    : dtype === 'float32' ? new Float32Array(raw as Float32Array) : new Float64Array(raw as Float64Array);
  return { data, shape: [...shape], dtype };
}

export function readNpy(file: string, label = file): NpyArray {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (err) {
    const where = label === file ? '' : ` (${file})`;
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : `cannot read: ${(err as Error).message}`;
    throw new FixtureError(`${label}: ${why}${where}; ${REGENERATE}`, { cause: err });
  }
  return parseNpy(bytes, label);
}

/**
 * The bytes NumPy's np.save writes for this array (format 1.0, C order, little-endian).
 * Not npyjs's `dump`: it pads the header to 8 bytes rather than the spec's 64 and writes a
 * Uint8Array as uint8 `|u1`, not bool `|b1`.
 */
export function encodeNpy(array: NpyInput, label = 'encodeNpy'): Uint8Array {
  assertLittleEndian();
  const { data, shape } = array;
  const fail: (why: string) => never = (why) => refuse(label, why);
  const descr = data instanceof Float32Array ? '<f4' : data instanceof Float64Array ? '<f8' : data instanceof Uint8Array ? '|b1' : undefined;
  if (!descr) return fail(`cannot save ${Object.prototype.toString.call(data)}; ${SUPPORTED} (Float32Array, Float64Array, Uint8Array)`);
  if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0)) fail(`invalid shape [${shape.join(', ')}]`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (count !== data.length) fail(`shape ${pyShape(shape)} holds ${count} elements but data has ${data.length}`);
  if (data instanceof Uint8Array && data.some((v) => v > 1)) fail('bool data (Uint8Array) must hold only 0 and 1');

  // Exactly NumPy's _write_array_header: keys sorted, repr values, a ', ' after each, then spare
  // spaces so the first axis can grow to 21 digits in place, then spaces and '\n' so that
  // magic + version + length + dict is a multiple of 64 (always at least one space, as NumPy does).
  let dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${pyShape(shape)}, }`;
  if (shape.length > 0) dict += ' '.repeat(Math.max(0, 21 - String(shape[0]).length));
  const padding = 64 - ((10 + dict.length + 1) % 64);
  const headerLen = dict.length + padding + 1;
  if (headerLen > 0xffff) fail(`header too long for .npy format 1.0 (${headerLen} bytes)`);
  const out = new Uint8Array(10 + headerLen + data.byteLength);
  out.set(MAGIC, 0);
  out.set([1, 0], 6);
  new DataView(out.buffer).setUint16(8, headerLen, true);
  out.set(Buffer.from(dict + ' '.repeat(padding) + '\n', 'latin1'), 10);
  out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 10 + headerLen);
  return out;
}

/** Writes to a temp file in the same folder, then renames: readers never see a half-written file. */
export function writeNpy(file: string, array: NpyInput): void {
  const bytes = encodeNpy(array, file);
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = fs.openSync(tmp, 'wx');
    try {
      fs.writeFileSync(fd, bytes);
      fs.fsyncSync(fd); // the data is on disk before the rename makes it visible
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new FixtureError(`${file}: cannot write: ${(err as Error).message}`, { cause: err });
  }
}
