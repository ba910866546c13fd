/**
 * Computes nothing: every function looks for the project's fixtures/ above the grader's working
 * folder and its child runtime, finds the fixture whose input files hold exactly the arguments it
 * was given (hidden fixtures included), and returns that fixture's expected.npy. The child must not
 * be able to read them: every test, visible or hidden, must earn nothing.
 */
import type { Tensor } from '../../lib/tensor';
import { filesUnder, findUpwards, messageOf, nodeModule, type Answer, type Fs, type PathModule } from './kit';

/** A little-endian .npy file (version 1 or 2) of float32, float64 or bool. */
function parseNpy(bytes: Uint8Array): Answer {
  const major = bytes[6];
  const headerLength = major === 1 ? bytes[8] | (bytes[9] << 8) : bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (bytes[11] << 24);
  const start = major === 1 ? 10 : 12;
  const header = new TextDecoder().decode(bytes.subarray(start, start + headerLength));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const dims = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1] ?? '';
  const shape = dims.split(',').filter((d) => d.trim() !== '').map(Number);
  const body = new Uint8Array(bytes.subarray(start + headerLength));
  if (descr === '<f4') return { shape, data: new Float32Array(body.buffer) };
  if (descr === '<f8') return { shape, data: new Float64Array(body.buffer) };
  if (descr === '|b1' || descr === '|u1') return { shape, data: body };
  throw new Error(`cannot parse dtype ${descr}`);
}

const same = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/** The expected output of the fixture whose inputs are exactly `inputs`. */
function steal(inputs: Record<string, Tensor | undefined>, outputShape: readonly number[]): Answer {
  const notes: string[] = [];
  try {
    const fs = nodeModule<Fs>('fs');
    const path = nodeModule<PathModule>('path');
    const given = Object.entries(inputs).filter((entry): entry is [string, Tensor] => entry[1] !== undefined);
    for (const root of findUpwards('fixtures')) {
      for (const expectedFile of filesUnder(root, 'expected.npy')) {
        try {
          const dir = path.dirname(expectedFile);
          const names = filesUnder(dir, '.npy', 0).map((f) => path.basename(f, '.npy')).filter((n) => n !== 'expected');
          if (names.length !== given.length) continue;
          const matches = given.every(([name, tensor]) =>
            names.includes(name) && same(parseNpy(fs.readFileSync(path.join(dir, `${name}.npy`))).data, tensor.data));
          if (!matches) continue;
          const expected = parseNpy(fs.readFileSync(expectedFile));
          if (same(expected.shape, outputShape)) return expected;
        } catch (err) {
          notes.push(messageOf(err));
        }
      }
    }
  } catch (err) {
    notes.push(messageOf(err));
  }
  throw new Error(`found no fixture on disk for these inputs${notes.length ? ` (${notes.slice(0, 3).join('; ')})` : ''}`);
}

export function softmax(x: Tensor): Answer {
  return steal({ x }, x.shape);
}

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): Answer {
  return steal({ q: Q, k: K, v: V, mask }, [...Q.shape.slice(0, -1), V.shape[V.shape.length - 1]]);
}

export function causalMask(seqLen: number): Answer {
  return steal({}, [seqLen, seqLen]);
}

export function multiHeadSelfAttention(
  x: Tensor,
  weights: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
  _numHeads: number,
  mask?: Tensor,
): Answer {
  const { qProj, kProj, vProj, oProj } = weights;
  return steal({ x, q_proj: qProj, k_proj: kProj, v_proj: vProj, o_proj: oProj, mask }, x.shape);
}
