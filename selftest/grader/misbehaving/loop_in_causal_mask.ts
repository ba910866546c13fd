/** causalMask counts the wrong way (`i--`) and never ends; the other functions are correct. */
import { Tensor } from '../../../lib/tensor';

export { multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function causalMask(seqLen: number): Tensor {
  for (let i = 0; i < seqLen; i--) {
    // the student meant i++
  }
  return Tensor.zeros([seqLen, seqLen]);
}
