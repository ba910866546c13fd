/** Which adapter a case calls, with which fixture inputs: shared by the vitest suite and the grader. */
import type { Tensor } from '../tensor';
import type { GradedFunction } from '../../tests/cases';

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
