/**
 * lib/npy.ts against NumPy, the format's reference implementation. Everywhere: the golden files in
 * selftest/npy/golden/, written by NumPy (make_golden.py there: float32, float64 and bool, C and
 * Fortran order, format versions 1–3, and dtypes we refuse). Where a `python3` with NumPy exists
 * (PATH first, then /usr/bin/python3), also live: NumPy writes those same bytes today, and loads
 * what writeNpy writes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FixtureError } from '../lib/errors';
import { encodeNpy, readNpy, writeNpy, type NpyArray } from '../lib/npy';

const GOLDEN = path.join(__dirname, 'npy', 'golden');
const golden = (file: string) => path.join(GOLDEN, file);

/** What make_golden.py stores, computed the same way: i·0.1 − 1.2 in float64, and i mod 3 = 0. */
const SHAPE = [2, 3, 4];
const VALUES = Array.from({ length: 24 }, (_, i) => i * 0.1 - 1.2);
const EXPECTED: Record<string, Pick<NpyArray, 'dtype' | 'data'>> = {
  f4: { dtype: 'float32', data: Float32Array.from(VALUES) },
  f8: { dtype: 'float64', data: Float64Array.from(VALUES) },
  b1: { dtype: 'bool', data: Uint8Array.from(VALUES, (_, i) => (i % 3 === 0 ? 1 : 0)) },
};
const VERSIONS = [1, 2, 3];

function refusal(file: string): string {
  try {
    readNpy(golden(file), file);
  } catch (err) {
    expect(err).toBeInstanceOf(FixtureError);
    return (err as Error).message;
  }
  throw new Error(`${file} was read, not refused`);
}

describe('golden .npy files written by NumPy (read on every machine)', () => {
  it('the folder holds exactly the files make_golden.py writes', () => {
    const listed = Object.keys(EXPECTED).flatMap((t) => ['C', 'F'].flatMap((o) => VERSIONS.map((v) => `${t}_${o}_v${v}.npy`)));
    const others = ['f8_scalar.npy', 'f4_big_endian.npy', 'i8.npy'];
    expect(fs.readdirSync(GOLDEN).filter((f) => f.endsWith('.npy')).sort()).toEqual([...listed, ...others].sort());
  });

  for (const [type, expected] of Object.entries(EXPECTED)) {
    for (const version of VERSIONS) {
      it(`${type}, C order, version ${version}.0: dtype, shape and every value`, () => {
        const read = readNpy(golden(`${type}_C_v${version}.npy`));
        expect([read.dtype, read.shape, read.data]).toEqual([expected.dtype, SHAPE, expected.data]);
      });
      it(`${type}, Fortran order, version ${version}.0: refused, naming the file and the fix`, () => {
        const file = `${type}_F_v${version}.npy`;
        expect(refusal(file)).toBe(`${file}: Fortran-ordered arrays are not supported: save with np.ascontiguousarray`);
      });
    }
    it(`${type}: writeNpy writes the very bytes np.save wrote (version 1.0)`, () => {
      const ours = Buffer.from(encodeNpy({ data: expected.data, shape: SHAPE }));
      expect(ours.equals(fs.readFileSync(golden(`${type}_C_v1.npy`)))).toBe(true);
    });
  }

  it('a 0-d scalar reads as shape []', () => {
    const scalar = readNpy(golden('f8_scalar.npy'));
    expect([scalar.dtype, scalar.shape, Array.from(scalar.data)]).toEqual(['float64', [], [2.5]]);
  });

  it('big-endian float32 and int64 are refused, naming the dtype', () => {
    expect(refusal('f4_big_endian.npy')).toContain("unsupported dtype '>f4' (big-endian float32)");
    expect(refusal('i8.npy')).toContain("unsupported dtype '<i8' (int64)");
  });
});

const PYTHONS = ['python3', '/usr/bin/python3'];
const python = PYTHONS.find((p) => spawnSync(p, ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0);
const noNumpy = python ? undefined : `no python3 with NumPy (tried ${PYTHONS.join(', ')})`;
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'npy-interop-'));
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

function runPython(args: string[], cwd: string): string {
  const run = spawnSync(python!, args, { cwd, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${python} failed (${run.status}):\n${run.stderr}`);
  return run.stdout;
}

describe(`live NumPy${noNumpy ? ` (skipped: ${noNumpy})` : ''}`, () => {
  it.skipIf(noNumpy !== undefined)('NumPy today writes the golden files byte for byte', () => {
    const dir = fs.mkdtempSync(path.join(temp, 'golden-'));
    runPython([golden('make_golden.py')], dir);
    const differ = fs.readdirSync(dir).filter((f) => !fs.readFileSync(path.join(dir, f)).equals(fs.readFileSync(golden(f))));
    expect(differ, 'regenerate: cd selftest/npy/golden && python3 make_golden.py').toEqual([]);
  });

  it.skipIf(noNumpy !== undefined)('NumPy loads what writeNpy writes, and np.save writes it back the same', () => {
    const dir = fs.mkdtempSync(path.join(temp, 'ours-'));
    const awkward = Float64Array.from([NaN, -0, -Infinity, Infinity, 1e-310, Math.PI]);
    const cases: Record<string, { data: NpyArray['data']; shape: number[]; descr: string }> = {
      f32: { data: Float32Array.from(awkward), shape: [2, 3], descr: '<f4' },
      f64: { data: awkward, shape: [6], descr: '<f8' },
      b: { data: EXPECTED.b1.data, shape: [4, 6], descr: '|b1' },
      scalar: { data: Float32Array.of(Math.PI), shape: [], descr: '<f4' },
    };
    for (const [name, c] of Object.entries(cases)) writeNpy(path.join(dir, `${name}.npy`), c);
    const out = runPython(['-c', `
import io, json, numpy as np
res = {}
for name in ${JSON.stringify(Object.keys(cases))}:
    raw = open(name + '.npy', 'rb').read()
    a = np.load(name + '.npy')
    again = io.BytesIO(); np.save(again, a)
    res[name] = dict(descr=a.dtype.str, shape=list(a.shape), hex=a.tobytes().hex(), same=again.getvalue() == raw)
print(json.dumps(res))`], dir);
    const res = JSON.parse(out) as Record<string, { descr: string; shape: number[]; hex: string; same: boolean }>;
    for (const [name, c] of Object.entries(cases)) {
      const hex = Buffer.from(c.data.buffer, c.data.byteOffset, c.data.byteLength).toString('hex');
      expect(res[name], name).toEqual({ descr: c.descr, shape: c.shape, hex, same: true });
    }
  });
});
