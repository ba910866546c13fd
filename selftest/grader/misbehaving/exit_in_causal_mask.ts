/** Exits the process from inside one function and prints on the way out. */
import type { Tensor } from '../../../lib/tensor';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(seqLen: number): Tensor {
  console.log(`causalMask(${seqLen}) is leaving`);
  process.exit(0);
}
