/** Reads the mask at row 0 for every query (mask[j] instead of mask[i][j]). */
import type { Tensor } from '../../../lib/tensor';
import { loopAttention, maskAllows } from './loops';

export { causalMask, multiHeadSelfAttention, softmax } from './base';

export function scaledDotProductAttention(Q: Tensor, K: Tensor, V: Tensor, mask?: Tensor) {
  return loopAttention(Q, K, V, mask, { allowed: (m, batch, b, _i, j) => maskAllows(m, batch, b, 0, j) });
}
