/** The softmax's Jacobian without its −p·(p·dP) term: dS = P ⊙ dP, as if softmax were elementwise. */
import type { Tensor } from '../../../lib/tensor';
import { probabilities } from './backward_base';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention, softmax, softmaxBackward } from './backward_base';

export function scaledDotProductAttentionBackward(Q: Tensor, K: Tensor, V: Tensor, dOut: Tensor, mask?: Tensor) {
  const scale = Q.shape[Q.ndim - 1] ** -0.5;
  const P = probabilities(Q, K, mask);
  const dV = P.transpose(-2, -1).matmul(dOut);
  const dP = dOut.matmul(V.transpose(-2, -1));
  const dS = P.mul(dP);
  const dQ = dS.matmul(K).mul(scale);
  const dK = dS.transpose(-2, -1).matmul(Q).mul(scale);
  return { dQ, dK, dV };
}
