/**
 * softmax recurses without end. The grader must report softmax's tests as errors (the stack
 * overflowed) and keep the other functions' points.
 */
import type { Tensor } from '../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention } from './base';

function deeper(x: Tensor, depth: number): Tensor {
  return depth < 0 ? x : deeper(x, depth + 1);
}

export function softmax(x: Tensor): Tensor {
  return deeper(x, 0);
}
