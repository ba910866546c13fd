import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HangError, withinLimit } from './withinLimit';
import { collectGarbage, heldBytes, withinBufferCap } from './bufferCap';

const MiB = 1024 ** 2;
const live = heldBytes;
/** A cap `room` bytes above what this thread's buffers hold now, its garbage (earlier tests') collected. */
const capWithRoom = (room: number) => {
  collectGarbage();
  return live() + room;
};

const TYPED = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array];
const globals = globalThis as unknown as Record<string, unknown>;
const named = (name: string) => globals[name] as new (...args: unknown[]) => { byteLength: number };

/** What a call ended with: 'made', or the error's name and message. */
function attempt(cap: number, make: () => unknown): string {
  try {
    withinBufferCap(cap, make);
    return 'made';
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}
const REFUSED = 'RangeError: Array buffer allocation failed';

describe('the memory cap on typed arrays in this process', () => {
  it('refuses, before allocating, what would take the buffers past the cap, for every constructor and length, and makes the rest', () => {
    const names = ['ArrayBuffer', 'SharedArrayBuffer', ...TYPED.map((t) => t.name)];
    // Far from the cap either way: a shared buffer of the run before may be freed only after the cap is
    // set (its memory goes back after the collection), which moves the room by up to its size.
    const sizes = fc.oneof(fc.integer({ min: 0, max: 8 * MiB }), fc.integer({ min: 96 * MiB, max: 128 * MiB }));
    fc.assert(fc.property(fc.constantFrom(...names), sizes, (name, bytes) => {
      const perElement = (globals[name] as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
      const length = Math.floor(bytes / perElement);
      const outcome = attempt(capWithRoom(16 * MiB), () => new (named(name))(length));
      expect(outcome).toBe(length * perElement > 16 * MiB ? REFUSED : 'made');
    }), { numRuns: 30 });
  });

  it('a 3.2 GB Float64Array is refused without allocating it', () => {
    const before = live();
    expect(attempt(2 * 1024 ** 3, () => new Float64Array(400_000_000))).toBe(REFUSED);
    expect(live() - before).toBeLessThan(MiB);
  });

  it('what is made without a length first (from an array, a growable buffer) is refused once made, when it is past the cap', () => {
    const cap = capWithRoom(8 * MiB);
    expect(attempt(cap, () => new Float64Array(new Array(2 * MiB).fill(1)))).toBe(REFUSED);
    expect(attempt(cap, () => new Float64Array(new Array(1000).fill(1)))).toBe('made');
    type Growable = new (length: number, options: { maxByteLength: number }) => ArrayBuffer;
    // The global read inside the call, as student code reads it: a constructor kept from before is not held.
    expect(attempt(cap, () => new (ArrayBuffer as unknown as Growable)(8, { maxByteLength: 64 * MiB }))).toBe(REFUSED);
    expect(attempt(cap, () => Float64Array.from({ length: 2 * MiB }, () => 0))).toBe(REFUSED);
  });

  it('copies made through species (slice, map) of arrays made before the call count too', () => {
    const big = new Float64Array(MiB);
    expect(attempt(capWithRoom(4 * MiB), () => big.slice())).toBe(REFUSED);
    expect(attempt(capWithRoom(16 * MiB), () => big.map((v) => v + 1))).toBe('made');
  });

  it('small arrays kept without end are stopped at the cap: the buffers never pass it, and the one refused would have', () => {
    const kept: Float64Array[] = [];
    const cap = capWithRoom(96 * MiB);
    expect(attempt(cap, () => {
      for (;;) kept.push(new Float64Array(MiB / 16));
    })).toBe(REFUSED);
    expect(kept.length).toBeGreaterThan(100);
    expect(live()).toBeLessThanOrEqual(cap);
    expect(live() + MiB / 2).toBeGreaterThan(cap);
  });

  it('garbage does not count: arrays no longer held are collected before an allocation is refused', () => {
    // Room for two: the array of the iteration before may still be held by the frame, in either path.
    expect(attempt(capWithRoom(40 * MiB), () => {
      for (let i = 0; i < 8; i++) new Float64Array((16 * MiB) / 8).fill(i);
    })).toBe('made');
  });

  it('the constructors are themselves in every other way, during the call and after it', () => {
    const before = new Float64Array(4);
    const originals = TYPED.map((t) => [t.name, globals[t.name]] as const);
    withinBufferCap(capWithRoom(64 * MiB), () => {
      const made = new Float64Array(4);
      expect(made).toBeInstanceOf(Float64Array);
      expect(before).toBeInstanceOf(Float64Array);
      expect(before.constructor).toBe(Float64Array);
      expect(Object.getPrototypeOf(made)).toBe(Float64Array.prototype);
      expect([Float64Array.name, Float64Array.BYTES_PER_ELEMENT]).toEqual(['Float64Array', 8]);
      class Doubled extends Float64Array {}
      expect(new Doubled(2)).toBeInstanceOf(Doubled);
      expect(before.slice()).toBeInstanceOf(Float64Array);
      expect(Array.from(Float32Array.of(1, 2))).toEqual([1, 2]);
      expect(() => new Float64Array(-1)).toThrow(RangeError);
    });
    for (const [name, original] of originals) {
      expect(globals[name]).toBe(original);
      expect((original as { prototype: { constructor: unknown } }).prototype.constructor).toBe(original);
    }
  });

  it("the error's stack starts at the code that asked", () => {
    let stack = '';
    try {
      withinBufferCap(MiB, function asksTooMuch() {
        return new Float64Array(1e9);
      });
    } catch (err) {
      stack = (err as Error).stack ?? '';
    }
    expect(stack.split('\n')[1]).toMatch(/asksTooMuch/);
  });

  it('a call its time limit stops leaves the originals in place', () => {
    const original = Float64Array;
    expect(() => withinBufferCap(capWithRoom(64 * MiB), () => withinLimit('softmax', () => {
      for (;;) new Float64Array(8);
    }, 200))).toThrow(HangError);
    expect(globalThis.Float64Array).toBe(original);
    expect(Float64Array.prototype.constructor).toBe(original);
  });
});
