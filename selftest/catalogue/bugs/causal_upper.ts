/** Upper-triangular (seed 001 "reverse mask"): every token sees the future. */
import { Tensor } from '../../../lib/tensor';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(seqLen: number): Tensor {
  return Tensor.arange(seqLen).unsqueeze(1).le(Tensor.arange(seqLen).unsqueeze(0));
}
