/**
 * How a case is invoked, shared by the vitest suite and the grader: which adapter it calls with
 * which fixture inputs, in which order the cases run, the copy of the inputs each call gets, and
 * the output shape the contract promises for those inputs.
 */
import { broadcastShapes } from '../shape';
import { Tensor } from '../tensor';
import { firstChange } from './inputsChanged';
import type { InputChange } from './inputsChanged';
import type { GradedCase, GradedFunction } from '../../tests/cases';

/** The adapter calls, sync (grader child) or async (vitest loads the submission lazily). */
export interface CaseRunner<R> {
  runSoftmax(x: Tensor, dim: number): R;
  runScaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor): R;
  runCausalMask(seqLen: number): R;
  runMultiHeadSelfAttention(
    x: Tensor,
    weights: { qProj: Tensor; kProj: Tensor; vProj: Tensor; oProj: Tensor },
    numHeads: number,
    mask?: Tensor,
  ): R;
}

export interface CaseInputs {
  params: Record<string, number>;
  inputs: Record<string, Tensor>;
}

export function invokeCase<R>(fn: GradedFunction, { params, inputs }: CaseInputs, run: CaseRunner<R>): R {
  switch (fn) {
    case 'softmax':
      return run.runSoftmax(inputs.x, params.dim);
    case 'scaled_dot_product_attention':
      return run.runScaledDotProductAttention(inputs.q, inputs.k, inputs.v, inputs.mask);
    case 'causal_mask':
      return run.runCausalMask(params.seqLen);
    case 'multihead_self_attention':
      return run.runMultiHeadSelfAttention(
        inputs.x,
        { qProj: inputs.q_proj, kProj: inputs.k_proj, vProj: inputs.v_proj, oProj: inputs.o_proj },
        params.numHeads,
        inputs.mask,
      );
  }
}

/**
 * The order both paths call the cases in: the table's. `npm test` runs its tests in it (one file,
 * one at a time; a `-t` filter keeps the order of what it selects), the grader its visible and then
 * its hidden cases; code that keeps state between calls meets the same sequence in both.
 */
export function runOrder<C extends GradedCase>(cases: readonly C[]): C[] {
  return [...cases];
}

/** A copy of a case's inputs for one call: whatever the call does to it, the case's own inputs stay as they were. */
export function copyInputs({ params, inputs }: CaseInputs): CaseInputs {
  return { params: { ...params }, inputs: Object.fromEntries(Object.entries(inputs).map(([name, t]) => [name, new Tensor(t.data.slice(), t.shape)])) };
}

/**
 * The inputs a call changed in place, each with the first flat index that changed (a new shape is
 * index 0): `given` is what it was handed, `pristine` a copy made before. What the call left in
 * `given` is student data: a getter that throws, or a replaced tensor, counts as changed at 0.
 */
export function changedInputs(pristine: CaseInputs, given: CaseInputs): InputChange[] {
  const changed: InputChange[] = [];
  for (const [name, t] of Object.entries(pristine.inputs)) {
    let at = 0;
    try {
      const after = given.inputs[name] as unknown as { shape: ArrayLike<number>; data: ArrayLike<number> };
      if (after instanceof Tensor && ArrayBuffer.isView(after.data)) at = firstChange(t, after);
    } catch {
      // a shape or data the call replaced with something that throws when read
    }
    if (at >= 0) changed.push({ name, at });
  }
  return changed;
}

/**
 * The output shape the contract promises for these inputs: derived from the inputs alone, so
 * sending it with a hidden case's inputs reveals nothing they do not. Undefined when the inputs
 * do not fit the contract (a probe's may not), and then no shape is promised.
 */
export function expectedShape(fn: GradedFunction, { params, inputs }: CaseInputs): number[] | undefined {
  try {
    switch (fn) {
      case 'softmax':
      case 'multihead_self_attention':
        return [...inputs.x.shape];
      case 'causal_mask':
        return Number.isSafeInteger(params.seqLen) && params.seqLen >= 0 ? [params.seqLen, params.seqLen] : undefined;
      case 'scaled_dot_product_attention': {
        const { q, k, v, mask } = inputs;
        const lead = (t: Tensor) => t.shape.slice(0, -2);
        let batch = broadcastShapes('attention', broadcastShapes('attention', lead(q), lead(k)), lead(v));
        if (mask) batch = broadcastShapes('attention', batch, lead(mask));
        return [...batch, q.shape[q.ndim - 2], v.shape[v.ndim - 1]];
      }
    }
  } catch {
    return undefined;
  }
}

/**
 * Whether an answer of `shape` is judged by its shape alone, its values neither read nor sent:
 * when it is not the promised shape and holds more elements. So no answer costs the grader more
 * to carry than a right one (a 200-million-element tensor once took longer than the whole budget,
 * and was refused as an oversized message rather than named as a wrong shape).
 */
export function judgedByShape(shape: readonly number[], expect: readonly number[] | undefined): boolean {
  if (!expect) return false;
  const size = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);
  return (shape.length !== expect.length || shape.some((n, i) => n !== expect[i])) && size(shape) > size(expect);
}
