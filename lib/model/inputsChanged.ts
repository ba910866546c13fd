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

/** Where an input first differs from its snapshot, as a flat index; -1 when it does not. A new shape counts as index 0. */
export function firstChange(before: TensorView, after: TensorView): number {
  if (after.shape.length !== before.shape.length || Array.from(before.shape).some((n, i) => after.shape[i] !== n)) return 0;
  if (after.data.length !== before.data.length) return 0;
  for (let i = 0; i < before.data.length; i++) {
    const [a, b] = [before.data[i], after.data[i]];
    // NaN stays NaN: not a change; -0 where 0 was is one (a write, whatever the value compares as).
    if (!Object.is(a, b)) return i;
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
