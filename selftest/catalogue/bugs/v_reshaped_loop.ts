/** Reads V as [d_v, n_k] (V[c][j], a reshape) where V[j][c] belongs: the probabilities are right, P V is not. */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { valueOffset: (b, j, c, nK, dV) => b * nK * dV + c * nK + j });
}
