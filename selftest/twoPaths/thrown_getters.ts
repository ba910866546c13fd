/**
 * causalMask throws an Error whose message never returns. Both paths read what it threw once,
 * under the call's limit, and time it out in the same words (npm test once handed the Error itself
 * to vitest, which read it again with no limit and hung for good).
 */
import type { Tensor } from '../../lib/tensor';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(seqLen: number): Tensor {
  const err = new Error('never read');
  Object.defineProperty(err, 'message', {
    get() {
      for (;;);
    },
  });
  if (seqLen >= 0) throw err;
  throw new Error('unreachable');
}
