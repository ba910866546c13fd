/** Tensor methods with a strict comparison: query > key hides the diagonal. */
import { Tensor } from '../../../lib/tensor';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(seqLen: number): Tensor {
  return Tensor.arange(seqLen).unsqueeze(1).gt(Tensor.arange(seqLen).unsqueeze(0));
}
