import { describe, expect, it } from 'vitest';
import { Tensor } from '../../lib/tensor';
import { entryToShow } from '../../tests/diagnosis/heatmaps';

describe('the batch entry a heatmap shows', () => {
  const expected = new Tensor(new Float64Array(3 * 2 * 2).fill(0.5), [3, 2, 2]);
  const off = (at: number, value: number) => {
    const data = Float64Array.from(expected.data);
    data[at] = value;
    return new Tensor(data, expected.shape);
  };

  it('the first entry with a NaN, even when another is further off', () => {
    const actual = off(9, 0.9);
    actual.data[5] = NaN;
    expect(entryToShow(actual, expected)).toBe(1);
  });
  it('else the entry with the largest error', () => expect(entryToShow(off(10, 0.1), expected)).toBe(2));
  it('the first when nothing came back', () => expect(entryToShow(undefined, expected)).toBe(0));
});
