/** Forgets the 1/√d_k in dQ: the scale of the scores is part of the chain rule. */
import type { Tensor } from '../../../lib/tensor';
import { probabilities } from './backward_base';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention, softmax, softmaxBackward } from './backward_base';

export function scaledDotProductAttentionBackward(Q: Tensor, K: Tensor, V: Tensor, dOut: Tensor, mask?: Tensor) {
  const scale = Q.shape[Q.ndim - 1] ** -0.5;
  const P = probabilities(Q, K, mask);
  const dV = P.transpose(-2, -1).matmul(dOut);
  const dP = dOut.matmul(V.transpose(-2, -1));
  const dS = P.mul(dP.sub(P.mul(dP).sum(-1, true)));
  const dQ = dS.matmul(K);
  const dK = dS.transpose(-2, -1).matmul(Q).mul(scale);
  return { dQ, dK, dV };
}
