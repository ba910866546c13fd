/**
 * causalMask calls process.exit, and catches what it can of it: in the grader the process running
 * it is gone whatever the code does next, so the case is a crash and the function's other tests
 * fail at once. npm test says the same (lib/grading/exitTrap.ts), where vitest once said its own words.
 */
import { causalMask as baseCausalMask } from './base';
import type { Tensor } from '../../lib/tensor';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(seqLen: number): Tensor {
  try {
    process.exit(3);
  } catch {
    // the process went on, had it not exited
  }
  return baseCausalMask(seqLen);
}
