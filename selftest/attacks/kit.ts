/**
 * Not an attack: the kit the attacks share, copied into each attack's folder as kit.ts. It reaches
 * Node's modules although the grader's `require` resolves only the submission's own files and the
 * tensor module, finds the project on disk, and builds answers of the right shape with wrong values.
 *
 * Module names are variables, never string literals, and no module is imported, not even for its
 * types: the grader refuses, before running anything, a submission whose source names a module it
 * may not use. Everything here is written with plain loops, so that it still works after an
 * attack has replaced Array.prototype's methods.
 */
import type { Tensor } from '../../lib/tensor';

/** The parts of node:fs and node:path the attacks use (their types cannot be imported, see above). */
export interface Fs {
  existsSync(file: string): boolean;
  readFileSync(file: string): Uint8Array;
  writeFileSync(file: string, data: string | Uint8Array): void;
  readdirSync(dir: string, options: { withFileTypes: true }): { name: string; isDirectory(): boolean; isFile(): boolean }[];
}
export interface PathModule {
  join(...parts: string[]): string;
  resolve(...parts: string[]): string;
  dirname(file: string): string;
  basename(file: string, suffix?: string): string;
}

/** What a thrown value says, without trusting it. */
export function messageOf(err: unknown): string {
  try {
    return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  } catch {
    return 'an unprintable value';
  }
}

type Loader = (name: string) => unknown;
/** A function called through a variable: not a require() call written out (see the require route). */
export const indirect = <F>(fn: F): F => fn;
const ROUTES: ReadonlyArray<readonly [string, Loader]> = [
  // The grader's own require: refuses anything but the submission's files and the tensor module.
  // Called indirectly: a require() call written out stops the submission before it runs
  // (lib/sandbox/imports.ts), and this route is about what the require it reaches gives.
  ['require', (name) => indirect(require)(name)],
  // In a real CommonJS module, module.constructor is Module and _load its loader.
  ['module.constructor._load', (name) => (module.constructor as unknown as { _load(request: string): unknown })._load(name)],
  // The process's main module is the grader's child script, loaded by Node's real loader.
  ['process.mainModule.require', (name) => process.mainModule!.require(name)],
  // Node ≥ 20.16: any built-in module, no require needed.
  ['process.getBuiltinModule', (name) => (process as unknown as { getBuiltinModule(id: string): unknown }).getBuiltinModule(name)],
];

/** Node's module `name` by the first route that works; the error lists why each route failed. */
export function nodeModule<T>(name: string): T {
  const failures: string[] = [];
  for (const [route, load] of ROUTES) {
    try {
      const loaded = load(name);
      if (loaded) return loaded as T;
      failures.push(`${route}: gave nothing`);
    } catch (err) {
      failures.push(`${route}: ${messageOf(err)}`);
    }
  }
  throw new Error(`could not reach node:${name} (${failures.join('; ')})`);
}

/**
 * Every existing `relative` in the folders above the places this process knows: its working
 * folder, its script (the grader's child runtime, inside the project) and the submission's folder.
 * Lookups that are refused are skipped; when nothing is found, the error says why.
 */
export function findUpwards(relative: string): string[] {
  const fs = nodeModule<Fs>('fs');
  const path = nodeModule<PathModule>('path');
  const found: string[] = [];
  const refused: string[] = [];
  for (const start of [process.cwd(), process.argv[1] ?? '', __dirname]) {
    for (const dir of ancestors(start)) {
      const candidate = path.join(dir, relative);
      try {
        if (found.indexOf(candidate) < 0 && fs.existsSync(candidate)) found.push(candidate);
      } catch (err) {
        refused.push(messageOf(err));
      }
    }
  }
  if (found.length === 0 && refused.length > 0) {
    throw new Error(`found no ${relative}: ${refused.length} lookups refused (${refused[0]})`);
  }
  return found;
}

/** `start` and every folder above it. */
export function ancestors(start: string): string[] {
  const path = nodeModule<PathModule>('path');
  const dirs: string[] = [];
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (path.dirname(dir) === dir) return dirs;
  }
}

/** Files under `dir` (at most `depth` folders down) whose name ends with `suffix`. */
export function filesUnder(dir: string, suffix: string, depth = 4): string[] {
  const fs = nodeModule<Fs>('fs');
  const path = nodeModule<PathModule>('path');
  const files: string[] = [];
  let entries: ReturnType<Fs['readdirSync']> = [];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isFile() && entry.name.endsWith(suffix)) files.push(full);
    else if (entry.isDirectory() && depth > 0) for (const file of filesUnder(full, suffix, depth - 1)) files.push(file);
  }
  return files;
}

/** An answer the grader reads like a Tensor: shape and row-major data. */
export interface Answer {
  shape: number[];
  data: Float32Array | Float64Array | Uint8Array;
}

function sized(shape: readonly number[]): { shape: number[]; size: number } {
  const copy: number[] = [];
  let size = 1;
  for (let i = 0; i < shape.length; i++) {
    copy[i] = shape[i];
    size *= shape[i];
  }
  return { shape: copy, size };
}

export function filled(shape: readonly number[], value: number): Answer {
  const { shape: copy, size } = sized(shape);
  const data = new Float64Array(size);
  for (let i = 0; i < size; i++) data[i] = value;
  return { shape: copy, data };
}

/** All four functions, answering `value` everywhere with the right shapes. */
export function wrongAnswers(value: number) {
  return {
    softmax: (x: Tensor): Answer => filled(x.shape, value),
    scaledDotProductAttention: (Q: Tensor, _K: Tensor, V: Tensor): Answer => {
      const shape = sized(Q.shape).shape;
      shape[shape.length - 1] = V.shape[V.shape.length - 1];
      return filled(shape, value);
    },
    causalMask: (seqLen: number): Answer => ({ shape: [seqLen, seqLen], data: new Uint8Array(seqLen * seqLen) }),
    multiHeadSelfAttention: (x: Tensor): Answer => filled(x.shape, value),
  };
}

/** The parts of node:fs the channel attacks use. */
interface RawFs {
  writeSync(fd: number, data: Uint8Array): number;
}

/**
 * Writes bytes straight to the grader's channel (fd 3), bypassing the child runtime: what a
 * submission that read the harness's source could send. The socket is non-blocking, so a full
 * buffer is waited out for at most a second.
 */
export function writeChannel(bytes: Uint8Array): void {
  const fs = nodeModule<RawFs>('fs');
  let at = 0;
  const until = Date.now() + 1000;
  while (at < bytes.length && Date.now() < until) {
    try {
      at += fs.writeSync(3, bytes.subarray(at));
    } catch (err) {
      if (messageOf(err).indexOf('EAGAIN') < 0) throw err;
    }
  }
}

/**
 * A frame of the channel's format ([u32 rest][u32 JSON length][JSON][blob]) holding `message`; the
 * JSON refers to typed arrays in the blob as {"$typed": "u8" | "f32" | "f64", "at", "length"}.
 */
export function frame(message: unknown, blob: Uint8Array = new Uint8Array(0)): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(message));
  const out = new Uint8Array(8 + json.length + blob.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 4 + json.length + blob.length);
  view.setUint32(4, json.length);
  out.set(json, 8);
  out.set(blob, 8 + json.length);
  return out;
}

/** How an attack names what it tries to leave on the machine: the self-test looks for it (attacks/machine.ts). */
export const LEFT_MARK = 'attention-attack-left-';

/**
 * Folders a child might write in: those anyone may write on most machines, its working folder and
 * the temporary folder it is told of; /tmp last, as the one a grader is likeliest to have covered
 * (V8 ends the process when it cannot open a trace file).
 */
export function writableCandidates(): string[] {
  const path = nodeModule<PathModule>('path');
  const os = nodeModule<{ tmpdir(): string }>('os');
  const dirs = ['/var/tmp', '/dev/shm', '/run/lock', '/var/lock', '/dev/mqueue', '/var/crash', process.cwd(), '/tmp', os.tmpdir()];
  const unique: string[] = [];
  for (let i = 0; i < dirs.length; i++) {
    const dir = path.resolve(dirs[i]);
    if (unique.indexOf(dir) < 0) unique.push(dir);
  }
  return unique;
}

/**
 * What a carry-forward attack takes for the grader's probe: attention in float64 asked of a process
 * before any softmax. The probe asks a fresh child for attention first (lib/grading/carryForward.ts);
 * every graded phase starts with softmax cases, and some graded attention cases are float64 too, so
 * the dtype alone would cheat on graded calls. Each attack exports `softmax` through markGraded.
 */
let gradedCallSeen = false;

export function markGraded<F extends (...args: never[]) => unknown>(fn: F): F {
  return ((...args: never[]) => {
    gradedCallSeen = true;
    return fn(...args);
  }) as F;
}

export function looksLikeCarryProbe(Q: Tensor): boolean {
  return Q.dtype === 'float64' && !gradedCallSeen;
}
