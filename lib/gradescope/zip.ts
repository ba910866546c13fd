/**
 * A minimal zip writer and reader (PKWARE APPNOTE 4.3: local headers, central directory, end
 * record; no zip64, no encryption), so building and checking the Gradescope bundle needs neither
 * a `zip` binary nor a dependency. Entries are deflated when that makes them smaller, stored
 * otherwise. Every entry carries a fixed 1980-01-01 timestamp, so the same files give the same bytes.
 */
import zlib from 'node:zlib';

export interface ZipEntry {
  /** Path inside the archive, forward slashes. */
  name: string;
  data: Buffer;
  /** Unix permission bits, e.g. 0o755 for a script Gradescope runs. */
  mode: number;
}

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
const STORE = 0;
const DEFLATE = 8;
const UTF8_NAMES = 0x0800;
/** "Made by" Unix (3) with spec version 2.0: unzip then applies the mode in the external attributes. */
const MADE_BY_UNIX = (3 << 8) | 20;
const S_IFREG = 0o100000;
const DOS_DATE_1980_01_01 = (1 << 5) | 1;

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

export function crc32(data: Uint8Array): number {
  let c = -1;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** The fields a local header and its central-directory record share, from "version needed" on. */
function commonFields(method: number, crc: number, compressed: number, size: number, nameLength: number): Buffer {
  const b = Buffer.alloc(26);
  b.writeUInt16LE(20, 0);
  b.writeUInt16LE(UTF8_NAMES, 2);
  b.writeUInt16LE(method, 4);
  b.writeUInt16LE(0, 6);
  b.writeUInt16LE(DOS_DATE_1980_01_01, 8);
  b.writeUInt32LE(crc, 10);
  b.writeUInt32LE(compressed, 14);
  b.writeUInt32LE(size, 18);
  b.writeUInt16LE(nameLength, 22);
  b.writeUInt16LE(0, 24); // no extra field
  return b;
}

export function writeZip(entries: readonly ZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const deflated = zlib.deflateRawSync(entry.data, { level: 9 });
    const [method, body] = deflated.length < entry.data.length ? [DEFLATE, deflated] : [STORE, entry.data];
    const fields = commonFields(method, crc32(entry.data), body.length, entry.data.length, name.length);
    const local = Buffer.concat([u32(LOCAL), fields, name, body]);
    const tail = Buffer.alloc(14); // comment length, disk, internal attributes, external attributes, offset
    tail.writeUInt32LE(((S_IFREG | entry.mode) << 16) >>> 0, 6);
    tail.writeUInt32LE(offset, 10);
    central.push(Buffer.concat([u32(CENTRAL), u16(MADE_BY_UNIX), fields, tail, name]));
    parts.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(central);
  if (entries.length > 0xffff || offset + directory.length > 0xffffffff) {
    throw new Error(`zip: ${entries.length} files in ${offset} bytes need zip64, which this writer does not do`);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

/** Reads an archive written by writeZip (or any plain zip without zip64), checking every CRC. */
export function readZip(zip: Buffer): ZipEntry[] {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== END) end--;
  if (end < 0) throw new Error('not a zip file: no end-of-central-directory record');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL) throw new Error(`zip: central directory record ${i} is damaged`);
    const [method, crc, compressed, size] = [zip.readUInt16LE(at + 10), zip.readUInt32LE(at + 16), zip.readUInt32LE(at + 20), zip.readUInt32LE(at + 24)];
    const [nameLength, extraLength, commentLength] = [zip.readUInt16LE(at + 28), zip.readUInt16LE(at + 30), zip.readUInt16LE(at + 32)];
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const body = zip.subarray(start, start + compressed);
    const data = method === DEFLATE ? zlib.inflateRawSync(body) : method === STORE ? Buffer.from(body) : undefined;
    if (!data) throw new Error(`zip: ${name} uses compression method ${method}, which this reader does not know`);
    if (data.length !== size || crc32(data) !== crc) throw new Error(`zip: ${name} fails its size or CRC check`);
    entries.push({ name, data, mode: (zip.readUInt32LE(at + 38) >>> 16) & 0o7777 });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function u16(x: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(x);
  return b;
}

function u32(x: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(x >>> 0);
  return b;
}
