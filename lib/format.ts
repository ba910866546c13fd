/** Number, index and shape formatting shared by every message a student or instructor reads. */

/** Six significant digits: enough to see a 1e-4 relative difference, short enough to read. */
export function formatNumber(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return '0';
  const abs = Math.abs(x);
  if (abs >= 1e-4 && abs < 1e6) return String(Number(x.toPrecision(6)));
  return x.toExponential(3);
}

/** Row-major flat offset → multi-index, e.g. 37 in [4, 12, 16] → [0, 2, 5]. */
export function unravelIndex(flat: number, shape: readonly number[]): number[] {
  const index = new Array<number>(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    index[d] = flat % shape[d];
    flat = Math.floor(flat / shape[d]);
  }
  return index;
}

export function formatIndex(index: readonly number[]): string {
  return `[${index.join(', ')}]`;
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
