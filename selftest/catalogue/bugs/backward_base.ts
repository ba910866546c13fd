/**
 * A correct backward pass written with tensor methods, the way a student derives it from the
 * forward pass (base.ts): P recomputed as the forward pass computes it, then the chain rule step by
 * step. The backward mutants re-export it and replace one line, so a mistake in one gradient
 * cannot leak into another function's tests.
 */
import { Tensor } from '../../../lib/tensor';
import { softmax } from './base';

export { causalMask, multiHeadSelfAttention, scaledDotProductAttention, softmax } from './base';

export function softmaxBackward(y: Tensor, dy: Tensor, dim: number): Tensor {
  const weighted = y.mul(dy).sum(dim, true);
  return y.mul(dy).sub(y.mul(weighted));
}

/** The forward pass's probabilities: −∞ where masked, fully masked rows 0. */
export function probabilities(Q: Tensor, K: Tensor, mask?: Tensor): Tensor {
  let scores = Q.matmul(K.transpose(-2, -1)).mul(Q.shape[Q.ndim - 1] ** -0.5);
  if (mask) scores = scores.maskedFill(mask.logicalNot(), -Infinity);
  const p = softmax(scores, -1);
  return p.maskedFill(p.isNaN(), 0);
}

export function scaledDotProductAttentionBackward(Q: Tensor, K: Tensor, V: Tensor, dOut: Tensor, mask?: Tensor) {
  const scale = Q.shape[Q.ndim - 1] ** -0.5;
  const P = probabilities(Q, K, mask);
  const dV = P.transpose(-2, -1).matmul(dOut);
  const dP = dOut.matmul(V.transpose(-2, -1));
  const dS = P.mul(dP.sub(P.mul(dP).sum(-1, true)));
  const dQ = dS.matmul(K).mul(scale);
  const dK = dS.transpose(-2, -1).matmul(Q).mul(scale);
  return { dQ, dK, dV };
}
