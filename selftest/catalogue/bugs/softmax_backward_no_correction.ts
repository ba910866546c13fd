/** The softmax's gradient as if it were elementwise: y ⊙ dy, the −y·(y·dy) term of its Jacobian dropped. */
import type { Tensor } from '../../../lib/tensor';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention, scaledDotProductAttentionBackward, softmax } from './backward_base';

export function softmaxBackward(y: Tensor, dy: Tensor, _dim: number): Tensor {
  return y.mul(dy);
}
