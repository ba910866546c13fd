/** The lower triangle built, then transposed (rows read as keys): seed 001's reverse mask, each query sees itself and the future. */
import { Tensor } from '../../../lib/tensor';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(seqLen: number): Tensor {
  const lower = Tensor.arange(seqLen).unsqueeze(1).ge(Tensor.arange(seqLen).unsqueeze(0));
  return lower.transpose(0, 1);
}
