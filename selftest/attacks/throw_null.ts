/**
 * softmax throws null and causalMask throws undefined. The grader must report both functions' tests
 * as errors with a reason a student can read, and keep the other functions' points.
 */
export { multiHeadSelfAttention, scaledDotProductAttention } from './base';

export function softmax(): never {
  throw null;
}

export function causalMask(): never {
  throw undefined;
}
