/**
 * The grader's memory cap on typed arrays, held in this process (npm test, lib/grading/inProcess.ts).
 * The grader's child runs under a cap on its address space (RLIMIT_AS, lib/sandbox/childLayers.ts):
 * an ArrayBuffer past it fails with V8's RangeError at the line that asked for it. vitest's worker
 * thread has no cap, and a 3.2 GB Float64Array passed there. So while a call runs, the global
 * constructors of ArrayBuffer, SharedArrayBuffer and every typed array are proxies that refuse
 * what would take this thread's memory outside V8's heap (its array buffers and the like, as V8
 * counts them for this thread) past the cap, after the collection V8 makes before it gives up: with
 * V8's words, thrown at the student's line. Only the construction is checked; the proxies are the
 * constructors in every other way (prototype, species, instanceof, statics), and the originals are
 * back once the call ends.
 *
 * What this check cannot see, and the child's cap does:
 * - memory on V8's heap (plain arrays, objects, strings): nothing in this thread can stop a call
 *   whose heap grows, short of ending the thread. Such a call meets the per-test limit here, and
 *   mostly in the grader too, where filling its 2 GiB of heap takes longer than a test may (a heap
 *   that grows faster dies there at the cap, and here meets V8's own heap limit for the thread);
 * - buffers made where no global constructor is called: Node's Buffer, WebAssembly memories,
 *   typed arrays from a constructor kept from before the call (toSorted, with: copies the size of
 *   an array already made);
 * - the child's cap is its whole address space, this one the thread's memory outside the heap: an allocation
 *   within about a tenth of the cap may pass in one path and fail in the other; one well past it
 *   (a 3.2 GB array, 64 MiB arrays kept without end) fails in both.
 * A file's top level, loaded before any call, is not held to it either.
 */
import { types } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ALLOCATION_FAILED } from '../sandbox/outOfMemory';

/** The constructors that allocate a buffer, those this Node has. */
const NAMES = [
  'ArrayBuffer', 'SharedArrayBuffer', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
  'Uint32Array', 'Float16Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
] as const;

/**
 * A construction smaller than this is added to the count last read instead of reading it again,
 * until the sum would pass the cap or it grew by RECOUNT_BYTES.
 */
const SMALL_BYTES = 1024 ** 2;
const RECOUNT_BYTES = 64 * 1024 ** 2;

type Constructor = (new (...args: unknown[]) => object) & { BYTES_PER_ELEMENT?: number; prototype: object };

const globals = globalThis as unknown as Record<string, Constructor | undefined>;
const originals = NAMES.flatMap((name) => (typeof globals[name] === 'function' ? [{ name, original: globals[name]! }] : []));

/**
 * What a growable buffer reserved beyond its length: the child's address space pays for its maximum
 * at once, where this thread's count holds only its length. Read with the intrinsic getters (a
 * subclass's own getters are student code).
 */
const reservedBeyond = (() => {
  const getter = (proto: object, name: string) => Object.getOwnPropertyDescriptor(proto, name)?.get;
  const [length, max] = [getter(ArrayBuffer.prototype, 'byteLength')!, getter(ArrayBuffer.prototype, 'maxByteLength')];
  const [sharedLength, sharedMax] = [getter(SharedArrayBuffer.prototype, 'byteLength')!, getter(SharedArrayBuffer.prototype, 'maxByteLength')];
  return (made: object): number => {
    if (types.isArrayBuffer(made) && max) return (max.call(made) as number) - (length.call(made) as number);
    if (types.isSharedArrayBuffer(made) && sharedMax) return (sharedMax.call(made) as number) - (sharedLength.call(made) as number);
    return 0;
  };
})();

/**
 * The bytes `new <name>(...args)` asks for, when they can be known without running student code
 * (a length that is a number, a view of a buffer); undefined when only what it made can say.
 */
function asked(bytesPerElement: number | undefined, args: readonly unknown[]): number | undefined {
  const [first, second] = args;
  if (bytesPerElement === undefined) {
    // ArrayBuffer(length, options): options may set a maximum, read by a getter of the student's.
    if (second !== undefined) return undefined;
    return first === undefined ? 0 : typeof first === 'number' ? first : undefined;
  }
  if (first === undefined) return 0;
  if (typeof first === 'number') return first * bytesPerElement;
  // A view of a buffer allocates nothing; any other source (an array, an iterable) says its length only when read.
  return types.isAnyArrayBuffer(first) ? 0 : undefined;
}

let gc: ((options: object) => void) | undefined;

/**
 * The collection V8 makes before it lets an ArrayBuffer allocation fail (its last resort): garbage
 * buffers give their memory back before it returns. A plain gc() leaves the freeing to a
 * background sweep: a count right after it still held garbage in 13 tries of 40.
 */
export function collectGarbage(): void {
  if (!gc) {
    // The one way to V8's collector without a flag on the command line: a context made while
    // --expose-gc is set has gc(); the flag is cleared again at once.
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as (options: object) => void;
    v8.setFlagsFromString('--no-expose-gc');
  }
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

let capBytes = Infinity;
/** This thread's buffers as last counted, plus what was constructed since. */
let estimate = 0;
/** Bytes constructed since the last count. */
let sinceCount = 0;

/** The error V8 throws for an ArrayBuffer past the cap, its stack starting at the code that asked. */
function allocationFailed(construct: (...args: never[]) => unknown): RangeError {
  const err = new RangeError(ALLOCATION_FAILED);
  Error.captureStackTrace(err, construct);
  return err;
}

/**
 * This thread's memory outside V8's heap, array buffers first, as V8 counts it: a few µs, where
 * process.memoryUsage() reads /proc (hundreds of µs on a loaded machine, on every call).
 */
export function heldBytes(): number {
  return v8.getHeapStatistics().external_memory;
}

/** Counts again: what the estimate starts from. */
function count(): number {
  sinceCount = 0;
  return (estimate = heldBytes());
}

/** Whether `bytes` more fit under the cap, counted again, and garbage collected first when they would not. */
function fits(bytes: number): boolean {
  if (count() + bytes <= capBytes) return true;
  collectGarbage();
  return count() + bytes <= capBytes;
}

/** Whether `bytes` more, of a length known before they are made, fit under the cap; counted again when it matters. */
function admits(bytes: number): boolean {
  const fit = bytes < SMALL_BYTES && estimate + bytes <= capBytes && sinceCount + bytes < RECOUNT_BYTES ? true : fits(bytes);
  if (fit) {
    estimate += bytes;
    sinceCount += bytes;
  }
  return fit;
}

const proxies = new Map<string, Constructor>();
for (const { original } of originals) {
  const handler: ProxyHandler<Constructor> = {
    construct(target, args, newTarget) {
      const bytes = asked(target.BYTES_PER_ELEMENT, args);
      const known = bytes !== undefined && Number.isFinite(bytes) && bytes >= 0;
      // A length that is not a valid one is V8's to refuse, in its own words.
      if (known && !admits(bytes)) throw allocationFailed(handler.construct!);
      const made = Reflect.construct(target, args, newTarget === proxy ? target : newTarget) as object;
      // Made first (from an array, with a maximum to reserve): counted with it, refused once made.
      if (!known && !fits(reservedBeyond(made))) throw allocationFailed(handler.construct!);
      return made;
    },
  };
  const proxy = new Proxy(original, handler);
  proxies.set(original.name, proxy);
}

let depth = 0;

// Reflect.set: code that froze a global or a prototype keeps it as it made it, and the call goes on.
function install(): void {
  for (const { name, original } of originals) {
    const proxy = proxies.get(name)!;
    Reflect.set(globals, name, proxy);
    // `x.constructor === Float64Array` holds for arrays made before the call too, and species
    // (slice, map, filter) finds the proxy, so what those copy is counted.
    Reflect.set(original.prototype, 'constructor', proxy);
  }
}

function uninstall(): void {
  for (const { name, original } of originals) {
    Reflect.set(globals, name, original);
    Reflect.set(original.prototype, 'constructor', original);
  }
}

/**
 * Runs `call` with every typed array and ArrayBuffer it constructs held to `cap` bytes of this
 * thread's buffers. Not from inside a run that node:vm's watchdog may stop: a stopped run skips
 * its finally blocks, and the proxies would stay.
 */
export function withinBufferCap<T>(cap: number, call: () => T): T {
  if (depth++ === 0) {
    capBytes = cap;
    count();
    install();
  }
  try {
    return call();
  } finally {
    if (--depth === 0) uninstall();
  }
}
