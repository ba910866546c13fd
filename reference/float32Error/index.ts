/**
 * The float32 error model of this assignment's functions (docs/float32-error.md), one bound per
 * output element. It lives with the reference, never in the handout: it computes attention in
 * float64 to weigh each key's error. Fixture generation writes each case's bound beside it
 * (fixtures/<case>/bound.npy); a case drawn per submission gets its bound from here, in the
 * grading process, as it gets its expected values.
 */
import { attention, attentionBound } from './attention';
import { attentionBackwardBounds, softmaxBackwardBound, type AttentionGradients } from './backward';
import { biasedMultiHeadBound, multiHeadBound, singleHeadBound } from './multiHead';
import { softmaxBound } from './softmax';
import type { Arr } from './terms';

export { attentionBackwardBounds, attentionBound, multiHeadBound, softmaxBackwardBound, softmaxBound };

/**
 * Each element's bound for function `fn` on these inputs (of its returned tuple's `part`, for a
 * function that returns several), or undefined for a function compared exactly (the causal mask).
 */
export function float32Bound(fn: string, inputs: Readonly<Record<string, Arr>>, params: Readonly<Record<string, number>>, part?: string): Float64Array | undefined {
  if (fn === 'softmax_backward') return softmaxBackwardBound(inputs.y, inputs.dy, params.dim);
  if (fn === 'scaled_dot_product_attention_backward') return attentionBackwardBounds(inputs)[part as keyof AttentionGradients];
  if (fn === 'softmax') return softmaxBound(inputs.x, params.dim);
  if (fn === 'scaled_dot_product_attention') return attentionBound(inputs);
  if (fn === 'multihead_self_attention') return multiHeadBound(inputs, params.numHeads);
  if (fn === 'attention') {
    const attended = attention({ q: inputs.q, k: inputs.k, v: inputs.v, mask: inputs.mask, ...(params.scale === 0 && { scale: 1 }) });
    return part === 'weights' ? attended.weightsBound : attended.bound;
  }
  if (fn === 'single_head_attention') return singleHeadBound(inputs, params.scale !== 0);
  if (fn === 'multihead_attention') return biasedMultiHeadBound(inputs, params.numHeads, part ?? 'output');
  return undefined;
}
