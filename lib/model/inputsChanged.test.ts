import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstChange } from './inputsChanged';

/** The rule stated plainly: the first index whose values are not the same value (Object.is). */
function byObjectIs(before: ArrayLike<number>, after: ArrayLike<number>): number {
  if (before.length !== after.length) return 0;
  for (let i = 0; i < before.length; i++) if (!Object.is(before[i], after[i])) return i;
  return -1;
}

const KINDS = [Float32Array, Float64Array, Uint8Array] as const;
type Kind = (typeof KINDS)[number];
/** Values that stress the rule: signed zeros, NaNs of other bit patterns, infinities, ordinary numbers. */
const value = fc.oneof(fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1, 0.5), fc.double());

function withOtherNaN(data: Float32Array | Float64Array): void {
  // A NaN with another payload: not the same bytes, still NaN where NaN was.
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  for (let i = 0; i < data.length; i++) if (Number.isNaN(data[i])) bytes[(i + 1) * data.BYTES_PER_ELEMENT - 2] ^= 0x01;
}

describe('firstChange', () => {
  it('names the first index whose value is not the same value, for any kind of array on either side', () => {
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(), value), { maxLength: 4 }),
        fc.constantFrom(...KINDS), fc.constantFrom(...KINDS), fc.boolean(), fc.boolean(),
        (values, writes, beforeKind: Kind, afterKind: Kind, otherNaN, offset) => {
          const before = beforeKind.from(values);
          // On an offset view too: the bytes compared are the view's, not its whole buffer's.
          const backing = new afterKind(before.length + (offset ? 3 : 0));
          const after = offset ? new afterKind(backing.buffer, 3 * afterKind.BYTES_PER_ELEMENT, before.length) : backing;
          after.set(afterKind.from(before));
          for (const [at, v] of writes) if (after.length) after[at % after.length] = v;
          if (otherNaN && !(after instanceof Uint8Array)) withOtherNaN(after);
          const shape = [before.length];
          expect(firstChange({ data: before, shape }, { data: after, shape })).toBe(byObjectIs(before, after));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a new shape or length is a change at index 0', () => {
    const data = new Float32Array([1, 2, 3, 4]);
    expect(firstChange({ data, shape: [2, 2] }, { data, shape: [4] })).toBe(0);
    expect(firstChange({ data, shape: [4] }, { data: data.subarray(1), shape: [4] })).toBe(0);
  });

  it('the same bytes read as another kind of number are a change', () => {
    const before = new Float32Array([1, 2]);
    expect(firstChange({ data: before, shape: [2] }, { data: new Int32Array(before.buffer.slice(0)), shape: [2] })).toBe(0);
  });

  it('-0 where 0 was is a change; the same NaN is not', () => {
    expect(firstChange({ data: new Float32Array([1, 0]), shape: [2] }, { data: new Float32Array([1, -0]), shape: [2] })).toBe(1);
    expect(firstChange({ data: new Float64Array([NaN, 2]), shape: [2] }, { data: new Float32Array([NaN, 2]), shape: [2] })).toBe(-1);
  });
});
