/**
 * Whether a call changed the tensors it was given: a copy of each input's data and shape is taken
 * before the call and held against the input after it. No imports, so the grader's child (which
 * reports what a call changed) and the in-process probes share this one rule.
 */

interface TensorView {
  readonly data: ArrayLike<number>;
  readonly shape: ArrayLike<number>;
}

export interface Snapshot {
  readonly data: Float64Array;
  readonly shape: readonly number[];
}

export function snapshotInputs(inputs: Readonly<Record<string, TensorView>>): Record<string, Snapshot> {
  const out: Record<string, Snapshot> = {};
  for (const [name, t] of Object.entries(inputs)) out[name] = { data: Float64Array.from(t.data), shape: Array.from(t.shape) };
  return out;
}

/**
 * Whether two arrays of one typed-array kind hold the same bytes, compared natively where Node is:
 * the same bytes are the same values, so most calls (which change nothing) skip the loop below,
 * which in a child's short life runs mostly unoptimised. Taken at load, before student code runs.
 */
const compareBytes = typeof Buffer === 'function' ? Buffer.compare : undefined;
function sameBytes(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (!compareBytes || !ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  return compareBytes(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), new Uint8Array(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

/** Where an input first differs from its snapshot, as a flat index; -1 when it does not. A new shape counts as index 0. */
export function firstChange(before: TensorView, after: TensorView): number {
  if (after.shape.length !== before.shape.length || Array.from(before.shape).some((n, i) => after.shape[i] !== n)) return 0;
  const { data: was } = before;
  const { data: is } = after;
  if (is.length !== was.length) return 0;
  if (sameBytes(was, is)) return -1;
  for (let i = 0; i < was.length; i++) {
    const a = was[i];
    const b = is[i];
    // Object.is(a, b), without a call per element: NaN stays NaN (not a change); -0 where 0 was is
    // one (a write, whatever the value compares as).
    if (a !== b ? a === a || b === b : a === 0 && 1 / a !== 1 / b) return i;
  }
  return -1;
}

/** The inputs a call changed, by name, with the first flat index that changed. */
export function changedInputs(before: Readonly<Record<string, Snapshot>>, after: Readonly<Record<string, TensorView>>): InputChange[] {
  const changed: InputChange[] = [];
  for (const [name, snapshot] of Object.entries(before)) {
    const at = after[name] ? firstChange(snapshot, after[name]) : 0;
    if (at >= 0) changed.push({ name, at });
  }
  return changed;
}

/** An input the call changed in place (lib/model/inputsChanged.ts): its name and the first flat index that changed. */
export interface InputChange {
  name: string;
  at: number;
}
