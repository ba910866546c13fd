/**
 * softmax never returns, and every attention and multi-head case calls it: at the per-case limit
 * alone this held a job slot for minutes. The submission's time budget must end it: the cases not
 * run in time are timeouts that say so, causalMask (run early, in turn with the others) keeps its
 * points, and the whole submission takes no longer than the budget.
 */
export { causalMask } from './base';
import { multiHeadSelfAttention as baseMultiHead, scaledDotProductAttention as baseAttention } from './base';
import type { Tensor } from '../../lib/tensor';

export function softmax(x: Tensor): never {
  for (;;) if (x.shape.length < 0) throw new Error('unreachable');
}

export const scaledDotProductAttention: typeof baseAttention = (...args) => {
  softmax(args[0]);
  return baseAttention(...args);
};
export const multiHeadSelfAttention: typeof baseMultiHead = (...args) => {
  softmax(args[0]);
  return baseMultiHead(...args);
};
